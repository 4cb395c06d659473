import { z } from 'zod';

/** The MCP protocol version the /mcp endpoint announces and clients verify on initialize. */
export const MCP_PROTOCOL_VERSION = '2025-11-25';

/** GET /api/config/system-settings/mcp and the answer of PUT: whether /mcp answers (off: 404). */
export const mcpSettingsSchema = z.object({
  enabled: z.boolean(),
  updatedAt: z.string().nullable(),
});
export type McpSettings = z.infer<typeof mcpSettingsSchema>;

/** PUT /api/config/system-settings/mcp */
export const updateMcpSettingsRequestSchema = z.strictObject({ enabled: z.boolean() });
export type UpdateMcpSettingsRequest = z.infer<typeof updateMcpSettingsRequestSchema>;
