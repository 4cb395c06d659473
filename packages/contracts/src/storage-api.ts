import { z } from 'zod';
import {
  driveAAccountMountConfigSchema,
  driveAProviderConfigSchema,
  driveBAccountMountConfigSchema,
  driveBProviderConfigSchema,
} from './drives-api.js';
import { errorCodeSchema } from './error-codes.js';

// Storage node API (docs/storage.md). Paths inside a mount are relative to its root, '/'-separated,
// without a leading '/'; '' is the root itself. The node validates them again (400 INVALID_PATH).

/**
 * Header of a read of the internal file route naming the size the caller already knows (the library's):
 * a backend whose stat is a round trip of its own (WebDAV) is then read in one request, its answer's total
 * size checked against this one (412 FILE_CHANGED when they differ). docs/storage.md.
 */
export const EXPECTED_SIZE_HEADER = 'x-svc-expected-size';

/** A client path inside a mount; the node applies the full path-safety rules (at most 4096 bytes). */
export const mountPathSchema = z.string().max(16_384);
/** One name (no '/'): the new name of a rename. */
export const entryNameSchema = z.string().min(1).max(255);

export const storageProviderKindSchema = z.enum(['local', 'webdav', 'drive_a', 'drive_b']);
export type StorageProviderKind = z.infer<typeof storageProviderKindSchema>;

/** Replaces secret values (passwords) in answers; sending it back on update keeps the stored secret. */
export const MASKED_SECRET = '********';

export const localProviderConfigSchema = z.strictObject({
  /** Absolute folder on the storage node's machine. */
  root: z.string().min(1).max(4096),
});
export type LocalProviderConfig = z.infer<typeof localProviderConfigSchema>;

export const webdavProviderConfigSchema = z.strictObject({
  /** Base URL of the WebDAV collection that is the mount root, http or https. */
  url: z.url({ protocol: /^https?$/ }).max(2048),
  username: z.string().max(256).optional(),
  password: z.string().max(1024).optional(),
  /** Allow loopback, private and link-local addresses (NAS on the LAN); administrators only. */
  allowPrivateNetwork: z.boolean().default(false),
  /** Parallel ranged reads a future download engine may use (1 to 32). */
  downloadThreads: z.number().int().min(1).max(32).default(1),
  /** Request timeout in seconds for metadata calls. */
  timeoutSeconds: z.number().int().min(1).max(600).default(30),
});
export type WebdavProviderConfig = z.infer<typeof webdavProviderConfigSchema>;

const mountNameSchema = z.string().trim().min(1).max(128);

export const createMountRequestSchema = z.discriminatedUnion('provider', [
  z.strictObject({ name: mountNameSchema, provider: z.literal('local'), config: localProviderConfigSchema }),
  z.strictObject({
    name: mountNameSchema,
    provider: z.literal('webdav'),
    config: webdavProviderConfigSchema,
  }),
  z.strictObject({
    name: mountNameSchema,
    provider: z.literal('drive_a'),
    config: z.union([driveAAccountMountConfigSchema, driveAProviderConfigSchema]),
  }),
  z.strictObject({
    name: mountNameSchema,
    provider: z.literal('drive_b'),
    config: z.union([driveBAccountMountConfigSchema, driveBProviderConfigSchema]),
  }),
]);
export type CreateMountRequest = z.infer<typeof createMountRequestSchema>;

/** PATCH body: a new name and/or a complete new provider config (secrets may be sent masked to keep them). */
export const updateMountRequestSchema = z.strictObject({
  name: mountNameSchema.optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});
export type UpdateMountRequest = z.infer<typeof updateMountRequestSchema>;

export const providerCapabilitiesSchema = z.object({
  rangeReads: z.boolean(),
  serverSideCopy: z.boolean(),
  serverSideMove: z.boolean(),
  directLinks: z.boolean(),
  cdnHosts: z.array(z.string()),
  downloadThreads: z.number().int().min(1).max(32),
  chunkSizeBytes: z.number().int().positive(),
  localFiles: z.boolean(),
});
export type ProviderCapabilities = z.infer<typeof providerCapabilitiesSchema>;

export const mountSchema = z.object({
  id: z.string(),
  name: z.string(),
  provider: storageProviderKindSchema,
  /** The provider config with secrets replaced by MASKED_SECRET. */
  config: z.record(z.string(), z.unknown()),
  capabilities: providerCapabilitiesSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Mount = z.infer<typeof mountSchema>;
export const mountListSchema = z.object({ mounts: z.array(mountSchema) });
export const mountIdParamsSchema = z.object({ mountId: z.uuid() });

export const mountCheckResponseSchema = z.object({
  ok: z.boolean(),
  error: z.object({ code: errorCodeSchema, message: z.string() }).optional(),
});

// --- Console dashboard: space of each mount --------------------------------------------------------------

/**
 * `ok`: the mount's backend answered; `unavailable`: it did not (a local root that is gone, a WebDAV server
 * that is down or refuses the credentials); the byte counts are then null.
 */
export const mountUsageStatusSchema = z.enum(['ok', 'unavailable']);
export type MountUsageStatus = z.infer<typeof mountUsageStatusSchema>;

const byteCountSchema = z.number().int().min(0).nullable();

/** One mount of GET /api/storage/dashboard/usage (docs/storage.md, "Dashboard"). */
export const mountUsageSchema = z.object({
  mountId: z.string(),
  name: z.string(),
  provider: storageProviderKindSchema,
  /** Mounts cannot be switched off (yet): always true. */
  enabled: z.boolean(),
  status: mountUsageStatusSchema,
  /**
   * Local mounts: the file system holding the root (`statfs`): its size, the bytes in use, and the bytes
   * free to the node's (unprivileged) user, so used + free may fall short of total by reserved blocks.
   * WebDAV: the server's RFC 4331 quota of the root collection (total = used + available), null when the
   * server reports none.
   */
  totalBytes: byteCountSchema,
  usedBytes: byteCountSchema,
  freeBytes: byteCountSchema,
});
export type MountUsage = z.infer<typeof mountUsageSchema>;

/** GET /api/storage/dashboard/usage: every mount of the node, by name. */
export const storageUsageResponseSchema = z.object({ mounts: z.array(mountUsageSchema) });
export type StorageUsageResponse = z.infer<typeof storageUsageResponseSchema>;

export const providerInfoSchema = z.object({
  kind: storageProviderKindSchema,
  /** Only administrators (role admin) may create mounts of this kind. */
  adminOnly: z.boolean(),
  secrets: z.array(z.string()),
});
export const providerListSchema = z.object({ providers: z.array(providerInfoSchema) });

// --- Entries and browsing -------------------------------------------------------------------------------

export const entryTypeSchema = z.enum(['file', 'dir']);
export type EntryType = z.infer<typeof entryTypeSchema>;

export const storageEntrySchema = z.object({
  name: z.string(),
  /** Relative to the mount root. */
  path: z.string(),
  type: entryTypeSchema,
  /** Bytes; 0 for folders. */
  size: z.number(),
  mtime: z.string(),
});
export type StorageEntry = z.infer<typeof storageEntrySchema>;

export const BROWSE_MAX_PAGE_SIZE = 500;
export const browseSortSchema = z.enum(['name', 'size', 'mtime']);
export const sortOrderSchema = z.enum(['asc', 'desc']);

export const browseQuerySchema = z.strictObject({
  path: mountPathSchema.default(''),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(BROWSE_MAX_PAGE_SIZE).default(100),
  sort: browseSortSchema.default('name'),
  order: sortOrderSchema.default('asc'),
});
export type BrowseQuery = z.infer<typeof browseQuerySchema>;

export const browseResponseSchema = z.object({
  path: z.string(),
  entries: z.array(storageEntrySchema),
  /** Entries in the folder (temp files excluded). */
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type BrowseResponse = z.infer<typeof browseResponseSchema>;

export const pathQuerySchema = z.strictObject({ path: mountPathSchema.default('') });
export const requiredPathQuerySchema = z.strictObject({ path: mountPathSchema });

export const mkdirRequestSchema = z.strictObject({
  path: mountPathSchema,
  /** Create missing parent folders too (an existing folder is then not an error). */
  parents: z.boolean().default(false),
});
export const renameRequestSchema = z.strictObject({ path: mountPathSchema, newName: entryNameSchema });
export const deleteRequestSchema = z.strictObject({
  path: mountPathSchema,
  /** Required to delete a folder that is not empty. */
  recursive: z.boolean().default(false),
});

// --- Transfers ------------------------------------------------------------------------------------------

export const transferKindSchema = z.enum(['copy', 'move']);
export const transferStateSchema = z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']);
export type TransferState = z.infer<typeof transferStateSchema>;

export const transferRequestSchema = z.strictObject({
  path: mountPathSchema,
  /** Target mount; the same mount when absent. */
  targetMountId: z.uuid().optional(),
  /** Full target path including the name. */
  targetPath: mountPathSchema,
  overwrite: z.boolean().default(false),
  /** Bandwidth limit for this transfer; unlimited when absent. */
  maxBytesPerSecond: z.number().int().min(1024).max(1e12).optional(),
});
export type TransferRequest = z.infer<typeof transferRequestSchema>;

const transferErrorSchema = z.object({ code: errorCodeSchema, message: z.string() });

/** A transfer as the API and the event stream show it. */
export const transferSchema = z.object({
  id: z.string(),
  kind: transferKindSchema,
  state: transferStateSchema,
  source: z.object({ mountId: z.string(), path: z.string() }),
  target: z.object({ mountId: z.string(), path: z.string() }),
  overwrite: z.boolean(),
  bytes: z.object({ done: z.number(), total: z.number() }),
  files: z.object({ done: z.number().int(), total: z.number().int() }),
  /** Bytes per second over the last seconds (0 when not running). */
  rate: z.number(),
  error: transferErrorSchema.nullable(),
  attempt: z.number().int(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  updatedAt: z.string(),
});
export type Transfer = z.infer<typeof transferSchema>;

export const transferIdParamsSchema = z.object({ transferId: z.uuid() });
export const transferListQuerySchema = z.strictObject({
  state: transferStateSchema.optional(),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
});
export const transferListSchema = z.object({
  items: z.array(transferSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

/** `data:` of an `event: transfer` on GET /api/storage/mounts/transfer/events. */
export const transferEventSchema = transferSchema;
export type TransferEvent = z.infer<typeof transferEventSchema>;

// --- Chunked uploads ------------------------------------------------------------------------------------

export const UPLOAD_MAX_CHUNK_BYTES = 8 * 1024 * 1024;
export const UPLOAD_MIN_CHUNK_BYTES = 256 * 1024;

export const createUploadRequestSchema = z.strictObject({
  path: mountPathSchema,
  size: z
    .number()
    .int()
    .min(0)
    .max(2 ** 50),
  /** Lower-case hex SHA-256 of the whole file; checked at completion when given. */
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/)
    .transform((value) => value.toLowerCase())
    .optional(),
  overwrite: z.boolean().default(false),
  chunkSize: z
    .number()
    .int()
    .min(UPLOAD_MIN_CHUNK_BYTES)
    .max(UPLOAD_MAX_CHUNK_BYTES)
    .default(UPLOAD_MAX_CHUNK_BYTES),
});
export type CreateUploadRequest = z.infer<typeof createUploadRequestSchema>;

export const uploadStateSchema = z.enum(['open', 'completing', 'completed', 'aborted']);
export const uploadSchema = z.object({
  id: z.string(),
  mountId: z.string(),
  path: z.string(),
  size: z.number(),
  sha256: z.string().nullable(),
  overwrite: z.boolean(),
  chunkSize: z.number().int(),
  chunkCount: z.number().int(),
  /** Indexes of the chunks stored so far, ascending. */
  received: z.array(z.number().int()),
  state: uploadStateSchema,
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type Upload = z.infer<typeof uploadSchema>;
export const uploadParamsSchema = z.object({ mountId: z.uuid(), uploadId: z.uuid() });
export const uploadChunkParamsSchema = z.object({
  mountId: z.uuid(),
  uploadId: z.uuid(),
  index: z.coerce.number().int().min(0).max(10_000_000),
});
export const uploadChunkResponseSchema = z.object({ index: z.number().int(), received: z.number().int() });
export const uploadCompleteResponseSchema = z.object({ upload: uploadSchema, entry: storageEntrySchema });

// --- Internal API (service token only; media service and play-agents) -----------------------------------

export const internalMountListSchema = z.object({
  mounts: z.array(z.object({ id: z.string(), name: z.string(), provider: storageProviderKindSchema })),
});

/** One line of GET /api/storage/internal/mounts/:mountId/walk (application/x-ndjson). */
export const walkLineSchema = z.object({
  path: z.string(),
  type: entryTypeSchema,
  size: z.number(),
  mtime: z.string(),
});
export type WalkLine = z.infer<typeof walkLineSchema>;

/**
 * GET /api/storage/internal/mounts/:mountId/locate?path=: where a file lies for a play-agent on the same
 * machine. `localPath` is the absolute real path on local mounts (null on others); the play-agent opens it
 * only when fstat agrees with `size` and `mtime`, else it reads through the file route.
 */
export const locateResponseSchema = z.object({
  localPath: z.string().nullable(),
  size: z.number().int().nonnegative(),
  /** ISO 8601 with milliseconds. */
  mtime: z.string(),
});
export type LocateResponse = z.infer<typeof locateResponseSchema>;

export const probeRequestSchema = z.strictObject({ path: mountPathSchema });
export const probeStreamSchema = z.object({
  index: z.number().int(),
  type: z.enum(['video', 'audio', 'subtitle']),
  codec: z.string(),
  language: z.string().optional(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  channels: z.number().int().optional(),
  title: z.string().optional(),
  default: z.boolean().optional(),
  forced: z.boolean().optional(),
});
/** A chapter mark of the file (ffprobe `-show_chapters`). */
export const probeChapterSchema = z.object({
  startSeconds: z.number().nonnegative(),
  title: z.string().optional(),
});
export const probeResultSchema = z.object({
  /** ffprobe's format name, e.g. 'matroska,webm'. */
  container: z.string(),
  /** null when the file states no duration. */
  durationSeconds: z.number().nullable(),
  /** Bits per second; null when unknown. */
  bitrate: z.number().nullable(),
  size: z.number(),
  streams: z.array(probeStreamSchema),
  /** In file order; absent when the file has none (and in results of probes older than chapters). */
  chapters: z.array(probeChapterSchema).optional(),
});
export type ProbeResult = z.infer<typeof probeResultSchema>;
export const probeResponseSchema = z.object({ available: z.boolean(), result: probeResultSchema.optional() });
export type ProbeResponse = z.infer<typeof probeResponseSchema>;
export const probeToolSchema = z.object({ available: z.boolean(), version: z.string().nullable() });
