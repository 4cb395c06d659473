import { z } from 'zod';
import { editionSchema } from './deployment.js';

// Node management (console, permission `node`) and the playback routes handed to users. See docs/nodes.md.

export const nodeServiceTypeSchema = z.enum([
  'svc-control-storage',
  'svc-play-agent',
  'manual-play-agent-endpoint',
]);
export type NodeServiceType = z.infer<typeof nodeServiceTypeSchema>;

/** A typed node id; an empty one at creation means "generate 'node-' + 12 random characters". */
export const NODE_ID_REGEX = /^node-[A-Za-z0-9_-]{3,60}$/;
export const nodeIdSchema = z
  .string()
  .regex(NODE_ID_REGEX, { message: 'node id must match node-[A-Za-z0-9_-]{3,60}' });

/** Default ports by service type (the spec's "default port"). */
export const DEFAULT_STORAGE_PORT = 18084;
export const DEFAULT_PLAY_AGENT_PORT = 19090;

/** A domain name or an IPv4 address; stored in lower case. */
export const NODE_HOST_REGEX =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
export const nodeHostSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(NODE_HOST_REGEX, { message: 'host must be a domain name or an IPv4 address' });

export const portSchema = z.number().int().min(1).max(65535);

const nameSchema = z.string().trim().min(1).max(128);
const noteSchema = z.string().max(2000);

/** Where users reach a worker node (the playback route URL handed to them); port null = the protocol's default. */
export const externalAddressInputSchema = z.strictObject({
  protocol: z.enum(['http', 'https']),
  host: nodeHostSchema,
  port: portSchema.nullable().optional(),
});
export type ExternalAddressInput = z.infer<typeof externalAddressInputSchema>;

/** A manual reverse-proxy address: https only, the playback domain, port 443 or empty (no port in the URL). */
export const manualAddressInputSchema = z.strictObject({
  protocol: z.literal('https').default('https'),
  host: nodeHostSchema,
  port: portSchema.nullable().optional(),
});

const nodeIdInputSchema = z
  .string()
  .trim()
  .max(100)
  .refine((value) => value === '' || NODE_ID_REGEX.test(value), {
    message: 'node id must match node-[A-Za-z0-9_-]{3,60}',
  })
  .optional();

/** POST /api/config/nodes */
export const createNodeRequestSchema = z.discriminatedUnion('serviceType', [
  z.strictObject({
    serviceType: z.literal('svc-control-storage'),
    nodeId: nodeIdInputSchema,
    name: nameSchema,
    expectedHost: nodeHostSchema,
    /** Default 18084. */
    expectedPort: portSchema.nullable().optional(),
    note: noteSchema.optional(),
    externalAddress: externalAddressInputSchema.nullable().optional(),
  }),
  z.strictObject({
    serviceType: z.literal('svc-play-agent'),
    nodeId: nodeIdInputSchema,
    name: nameSchema,
    expectedHost: nodeHostSchema,
    /** Default: the listen port. */
    expectedPort: portSchema.nullable().optional(),
    /** Default: 19090, or the next port no other play-agent on the same expected host uses (19091, …). */
    listenPort: portSchema.nullable().optional(),
    note: noteSchema.optional(),
    externalAddress: externalAddressInputSchema.nullable().optional(),
  }),
  z.strictObject({
    serviceType: z.literal('manual-play-agent-endpoint'),
    nodeId: nodeIdInputSchema,
    name: nameSchema,
    note: noteSchema.optional(),
    externalAddress: manualAddressInputSchema,
  }),
]);
export type CreateNodeRequest = z.infer<typeof createNodeRequestSchema>;

/** PATCH /api/config/nodes/:nodeId: the fields to change (at least one). Built-in nodes: name, note, externalAddress. */
export const updateNodeRequestSchema = z
  .strictObject({
    name: nameSchema.optional(),
    expectedHost: nodeHostSchema.optional(),
    /** null: back to the default. */
    expectedPort: portSchema.nullable().optional(),
    /** Play-agents only; null: back to 19090. */
    listenPort: portSchema.nullable().optional(),
    note: noteSchema.optional(),
    /** null clears it (worker nodes only; a manual address always has one, protocol https). */
    externalAddress: externalAddressInputSchema.nullable().optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), {
    message: 'at least one field to change',
  });
export type UpdateNodeRequest = z.infer<typeof updateNodeRequestSchema>;

export const nodeParamsSchema = z.object({ nodeId: z.string().min(1).max(100) });

/** DELETE /api/config/nodes/:nodeId?sendUninstall=true */
export const deleteNodeQuerySchema = z.object({
  sendUninstall: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => value === 'true'),
});

export const externalAddressSchema = z.object({
  protocol: z.enum(['http', 'https']),
  host: z.string(),
  port: z.number().int().nullable(),
  /** protocol://host[:port]; the port is left out for https:443, http:80 and an empty port. */
  url: z.string(),
});
export type ExternalAddress = z.infer<typeof externalAddressSchema>;

/**
 * AWAITING_INSTALL: a former built-in node of a DISTRIBUTED install (scope EMBEDDED, no heartbeat): it waits to be
 * taken over in node management and installed on a target machine under the same id (docs/nodes.md).
 */
export const nodeStatusSchema = z.enum(['PENDING', 'ONLINE', 'offline', 'AWAITING_INSTALL']);

/** One node record as the console lists it. Tokens are masked (`svc_nt_…abcd`). */
export const nodeViewSchema = z.object({
  nodeId: z.string(),
  serviceType: nodeServiceTypeSchema,
  name: z.string(),
  scope: z.enum(['EMBEDDED', 'EXTERNAL']),
  /**
   * Worker nodes: PENDING until the first heartbeat, ONLINE, offline after 30 s without one. Manual addresses:
   * PENDING until the first /health probe, then ONLINE or offline as the last probe found. Built-in nodes of a
   * DISTRIBUTED install that send no heartbeat: AWAITING_INSTALL.
   */
  status: nodeStatusSchema,
  /** Worker nodes: last valid registration heartbeat. Manual addresses: last successful /health probe. */
  lastHeartbeatAt: z.string().nullable(),
  disabled: z.boolean(),
  /** Worker nodes only (null for manual addresses). */
  expectedHost: z.string().nullable(),
  /** Effective port: the stored one or the default of the type. Null for manual addresses. */
  expectedPort: z.number().int().nullable(),
  /** Play-agents only: the effective listen port. */
  listenPort: z.number().int().nullable(),
  note: z.string(),
  externalAddress: externalAddressSchema.nullable(),
  tokens: z.object({
    nodeToken: z.string().nullable(),
    registryToken: z.string().nullable(),
    endpointToken: z.string().nullable(),
  }),
  /** Manual addresses only: the last outbound probe of GET https://<domain>[:port]/health. */
  probe: z
    .object({
      state: z.enum(['online', 'offline']),
      checkedAt: z.string(),
      detail: z.string(),
    })
    .nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type NodeView = z.infer<typeof nodeViewSchema>;

/** GET /api/config/nodes */
export const listNodesResponseSchema = z.object({
  edition: editionSchema,
  /** Licence slots in use: EXTERNAL, non-disabled worker records per type (built-in and manual never count). */
  slotsUsed: z.object({ storage: z.number().int(), playAgent: z.number().int() }),
  nodes: z.array(nodeViewSchema),
});
export type ListNodesResponse = z.infer<typeof listNodesResponseSchema>;

/** The six kinds of script of GET /api/config/nodes/install/{token}/{kind}. */
export const INSTALL_KINDS = [
  'binary',
  'binary-jdk',
  'docker',
  'uninstall',
  'upgrade-binary',
  'upgrade-docker',
] as const;
export const installKindSchema = z.enum(INSTALL_KINDS);
export type InstallKind = z.infer<typeof installKindSchema>;

export const installCommandSchema = z.object({
  kind: installKindSchema,
  /** The `?ffmpeg=true` variant (play-agents). */
  ffmpeg: z.boolean(),
  command: z.string(),
});
export type InstallCommand = z.infer<typeof installCommandSchema>;

/** GET /api/config/nodes/:nodeId/credentials ("show full command"): the secrets in full. */
export const nodeCredentialsSchema = z.object({
  nodeId: z.string(),
  serviceType: nodeServiceTypeSchema,
  scope: z.enum(['EMBEDDED', 'EXTERNAL']),
  nodeToken: z.string().nullable(),
  registryToken: z.string().nullable(),
  endpointToken: z.string().nullable(),
  /** The config service address the commands use (null for manual addresses). */
  configUrl: z.string().nullable(),
  /** Empty for built-in nodes (not installed, upgraded or uninstalled on their own) and manual addresses. */
  installCommands: z.array(installCommandSchema),
});
export type NodeCredentials = z.infer<typeof nodeCredentialsSchema>;

/** POST /api/config/nodes → 201 */
export const createNodeResponseSchema = z.object({
  node: nodeViewSchema,
  credentials: nodeCredentialsSchema,
});
export type CreateNodeResponse = z.infer<typeof createNodeResponseSchema>;

/** DELETE /api/config/nodes/:nodeId → 200 */
export const deleteNodeResponseSchema = z.object({
  nodeId: z.string(),
  deleted: z.literal(true),
  /**
   * What became of "send uninstall command": `not-requested`; `not-applicable` (manual address); `unreachable`
   * (the node was not ONLINE); `sent` (the ONLINE node accepted the uninstall command, POST /api/node/lifecycle,
   * and runs its uninstall script); `not-sent` (the node has no registered address, refused or did not answer:
   * the uninstall script must be run on the machine).
   */
  uninstall: z.enum(['not-requested', 'not-applicable', 'unreachable', 'sent', 'not-sent']),
  message: z.string(),
});
export type DeleteNodeResponse = z.infer<typeof deleteNodeResponseSchema>;

/** POST /api/config/nodes/:nodeId/endpoint-token → 200 */
export const regenerateEndpointTokenResponseSchema = z.object({
  node: nodeViewSchema,
  endpointToken: z.string(),
});
export type RegenerateEndpointTokenResponse = z.infer<typeof regenerateEndpointTokenResponseSchema>;

/** GET /api/config/me/playback-routes: the addresses a signed-in account enters into an Emby-compatible client. */
export const playbackRouteSchema = z.object({
  /** `node`: a play-agent node; `endpoint`: a manual reverse-proxy address (the kinds of node access). */
  kind: z.enum(['node', 'endpoint']),
  id: z.string(),
  name: z.string(),
  /** Null when the node has no external address and no host is known for its direct address. */
  url: z.string().nullable(),
  /**
   * `external-address` (set by an administrator), `manual-address`, or `direct-address`: the play-agent
   * itself at the port it really listens on (a worker node's expected host; for the built-in node the
   * host the portal was reached with, else SVC_PUBLIC_HOST), handed out until an external address is set.
   */
  source: z.enum(['external-address', 'direct-address', 'manual-address']),
  /** Node status, or the last /health probe of a manual address. */
  health: z.enum(['online', 'offline', 'pending']),
});
export type PlaybackRoute = z.infer<typeof playbackRouteSchema>;
export const playbackRoutesResponseSchema = z.object({ routes: z.array(playbackRouteSchema) });
export type PlaybackRoutesResponse = z.infer<typeof playbackRoutesResponseSchema>;

/**
 * GET /api/config/internal/nodes/:nodeId/public-address (service token): the public base URL of a
 * play-agent without public_base_url of its own, i.e. its external address; null while none is set.
 */
export const nodePublicAddressResponseSchema = z.object({
  nodeId: z.string(),
  publicBaseUrl: z.string().nullable(),
});
export type NodePublicAddressResponse = z.infer<typeof nodePublicAddressResponseSchema>;

/** What the control plane asks an installed worker node to do with itself (docs/node-install.md). */
export const NODE_LIFECYCLE_ACTIONS = ['upgrade', 'uninstall'] as const;
export type NodeLifecycleAction = (typeof NODE_LIFECYCLE_ACTIONS)[number];

/** POST /api/node/lifecycle on a worker node (service token only). */
export const nodeLifecycleRequestSchema = z.object({ action: z.enum(NODE_LIFECYCLE_ACTIONS) });
export type NodeLifecycleRequest = z.infer<typeof nodeLifecycleRequestSchema>;

/** POST /api/node/lifecycle → 202: the script runs detached; its output goes to `log` on the node. */
export const nodeLifecycleAcceptedSchema = z.object({
  action: z.enum(NODE_LIFECYCLE_ACTIONS),
  accepted: z.literal(true),
  log: z.string(),
});
export type NodeLifecycleAccepted = z.infer<typeof nodeLifecycleAcceptedSchema>;

/** POST /api/config/nodes/:nodeId/upgrade and …/uninstall → 202 */
export const nodeLifecycleResponseSchema = z.object({
  nodeId: z.string(),
  action: z.enum(NODE_LIFECYCLE_ACTIONS),
  accepted: z.literal(true),
});
export type NodeLifecycleResponse = z.infer<typeof nodeLifecycleResponseSchema>;

/** GET /api/config/internal/nodes?ids=a,b (service token): comma-separated ids, at most 200 distinct. */
export const nodeDirectoryQuerySchema = z.object({
  ids: z
    .string()
    .max(10_000)
    .transform((value) => [
      ...new Set(
        value
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(z.array(z.string().max(64)).max(200)),
});

/**
 * GET /api/config/internal/nodes → the records among the ids that exist (unknown ids are absent): the fields of
 * the console's view other services may know.
 */
export const nodeDirectoryResponseSchema = z.object({
  nodes: z.array(
    nodeViewSchema.pick({
      nodeId: true,
      serviceType: true,
      name: true,
      scope: true,
      status: true,
      lastHeartbeatAt: true,
      disabled: true,
    }),
  ),
});
export type NodeDirectoryResponse = z.infer<typeof nodeDirectoryResponseSchema>;

/**
 * GET /api/config/nodes/install/{token}/{kind}: any text is accepted here, because every bad request gets the
 * same plain-text 403 `# invalid token` (the answer is piped into bash, never a JSON error body).
 */
export const installScriptParamsSchema = z.object({ token: z.string(), kind: z.string() });
/** `?ffmpeg=true` (or `1`) asks for the variant with ffmpeg (play-agents); anything else is ignored. */
export const installScriptQuerySchema = z.object({ ffmpeg: z.unknown().optional() });

/** GET /api/config/binaries/{service}?token=<NODE_TOKEN>: the route checks the token itself. */
export const binaryDownloadParamsSchema = z.object({ service: z.string() });
/** The node token; a missing or repeated one answers 401 (the route reads a single string only). */
export const binaryDownloadQuerySchema = z.object({ token: z.unknown().optional() });

/** GET /api/config/binaries/status (console, permission `node`). */
export const binaryStatusSchema = z.object({
  /** False: the config service provides no binary (downloads answer 404 BINARY_NOT_AVAILABLE). */
  provided: z.boolean(),
  file: z.string(),
  platform: z.string(),
  version: z.string().nullable(),
  sizeBytes: z.number().nullable(),
  sha256: z.string().nullable(),
  modifiedAt: z.string().nullable(),
  services: z.array(z.enum(['svc-control-storage', 'svc-play-agent'])),
  controlVersion: z.string(),
  /** Images of the docker install kinds (SVC_NODE_IMAGE, SVC_NODE_IMAGE_FFMPEG). */
  dockerImage: z.string(),
  dockerImageFfmpeg: z.string(),
  message: z.string(),
});
export type BinaryStatus = z.infer<typeof binaryStatusSchema>;

/** A container image reference as `docker pull` takes it (registry/name:tag or @digest). */
export const containerImageReferenceSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$/, 'not a container image reference');

/**
 * GET /api/config/system-settings/node-image and the answer of PUT: the images the container install kinds
 * name. `image`/`imageFfmpeg` are in force: the stored value, else the environment default
 * (SVC_NODE_IMAGE, SVC_NODE_IMAGE_FFMPEG).
 */
export const nodeImageSettingsSchema = z.object({
  image: z.string(),
  imageFfmpeg: z.string(),
  /** The stored values (null: the environment default applies). */
  stored: z.object({ image: z.string().nullable(), imageFfmpeg: z.string().nullable() }),
  defaults: z.object({ image: z.string(), imageFfmpeg: z.string() }),
  updatedAt: z.string().nullable(),
});
export type NodeImageSettings = z.infer<typeof nodeImageSettingsSchema>;

/** PUT /api/config/system-settings/node-image: null returns a field to its environment default. */
export const updateNodeImageSettingsRequestSchema = z.strictObject({
  image: containerImageReferenceSchema.nullable(),
  imageFfmpeg: containerImageReferenceSchema.nullable(),
});
export type UpdateNodeImageSettingsRequest = z.infer<typeof updateNodeImageSettingsRequestSchema>;
