import { z } from 'zod';

/** Protocol server information: what players see as the server's name (PROTO_A `/System/Info/Public`). */
export const protocolServerInfoSchema = z.object({
  serverName: z.string().trim().min(1).max(128),
  productName: z.string().trim().min(1).max(128),
});
export type ProtocolServerInfo = z.infer<typeof protocolServerInfoSchema>;

export const DEFAULT_PROTOCOL_SERVER_INFO: ProtocolServerInfo = {
  serverName: 'SVC Media',
  productName: 'SVC Media Server',
};

/** PUT /api/media/protocol/proto_a/settings: the two editable fields; other protocol fields are ignored. */
export const updateProtocolServerInfoSchema = z
  .object({
    serverName: protocolServerInfoSchema.shape.serverName,
    productName: protocolServerInfoSchema.shape.productName,
  })
  .loose();
