import { z } from 'zod';
import { nodeCacheConfigSchema } from './node-cache-config.js';
import { storageProviderKindSchema } from './storage-api.js';

/**
 * Payloads of a play-agent node's cache endpoints besides the configuration itself (node-cache-config.ts):
 * disk usage, the VFS entry list, deletion, flush and copying a configuration to other nodes
 * (docs/vfs-cache.md, "Endpoints"). Field names are ours.
 */

export const VFS_ENTRY_BADGES = ['SMART_READY', 'CACHE_FAILED', 'BASIC_HEAD_TAIL', 'PLAYING'] as const;
export const vfsEntryBadgeSchema = z.enum(VFS_ENTRY_BADGES);
export type VfsEntryBadge = z.infer<typeof vfsEntryBadgeSchema>;

export const diskUsageResponseSchema = z.object({
  enabled: z.boolean(),
  /** The cache directory in use (the configured one, else the node's default). */
  directory: z.string(),
  capacityBytes: z.number().int(),
  /** Verified bytes plus bytes written and not yet verified. */
  usedBytes: z.number().int(),
  /** Reserved for fetches under way. */
  inFlightBytes: z.number().int(),
  entries: z.number().int(),
  entriesInUse: z.number().int(),
  /** The file system holding the directory; null when it cannot be read. */
  fileSystem: z.object({ totalBytes: z.number(), freeBytes: z.number() }).nullable(),
});
export type DiskUsageResponse = z.infer<typeof diskUsageResponseSchema>;

export const VFS_ITEM_SORTS = ['cachedBytes', 'totalBytes', 'lastAccess'] as const;

const queryBoolean = z
  .union([z.boolean(), z.enum(['true', 'false'])])
  .transform((value) => value === true || value === 'true');

export const vfsItemsQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
  /** Case-insensitive part of the name or the source id. */
  keyword: z.string().trim().max(200).optional(),
  groupByEpisodes: queryBoolean.default(false),
  sort: z.enum(VFS_ITEM_SORTS).default('lastAccess'),
  order: z.enum(['asc', 'desc']).default('desc'),
});
export type VfsItemsQuery = z.infer<typeof vfsItemsQuerySchema>;

export const vfsCachedRangeSchema = z.object({
  /** Inclusive byte offsets. */
  start: z.number().int(),
  end: z.number().int(),
  /** `head` starts at 0, `tail` ends at the last byte, everything else is `middle`. */
  part: z.enum(['head', 'middle', 'tail']),
});

export const vfsItemSchema = z.object({
  /** Id to delete the entry with. */
  id: z.string(),
  sourceId: z.string(),
  name: z.string(),
  totalBytes: z.number().int(),
  cachedBytes: z.number().int(),
  lastAccessAt: z.string(),
  badge: vfsEntryBadgeSchema,
  ranges: z.array(vfsCachedRangeSchema),
  /** Library facts known when the file was last played (null when unknown). */
  itemId: z.string().nullable(),
  seriesName: z.string().nullable(),
  seasonNumber: z.number().int().nullable(),
  episodeNumber: z.number().int().nullable(),
});
export type VfsItem = z.infer<typeof vfsItemSchema>;

/** One row of the list: a single entry, or (groupByEpisodes) the entries of one season of a series. */
export const vfsItemRowSchema = z.object({
  /** The entry's id, or `series:<name>:<season>` for a group. */
  key: z.string(),
  name: z.string(),
  totalBytes: z.number().int(),
  cachedBytes: z.number().int(),
  lastAccessAt: z.string(),
  entries: z.array(vfsItemSchema),
});
export type VfsItemRow = z.infer<typeof vfsItemRowSchema>;

export const vfsItemsResponseSchema = z.object({
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  rows: z.array(vfsItemRowSchema),
});
export type VfsItemsResponse = z.infer<typeof vfsItemsResponseSchema>;

export const vfsDeleteRequestSchema = z.union([
  z.strictObject({ entryId: z.string().min(1).max(200) }),
  z.strictObject({ all: z.literal(true) }),
]);
export type VfsDeleteRequest = z.infer<typeof vfsDeleteRequestSchema>;

export const vfsDeleteResponseSchema = z.object({
  removed: z.number().int(),
  /** Entries kept because they are playing (delete all). */
  inUse: z.number().int(),
});
export type VfsDeleteResponse = z.infer<typeof vfsDeleteResponseSchema>;

export const cacheFlushResponseSchema = z.object({
  vfs: vfsDeleteResponseSchema,
  /** What each other registered cache (the image cache) reported; an error text when it failed. */
  others: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() })),
});
export type CacheFlushResponse = z.infer<typeof cacheFlushResponseSchema>;

export const cacheConfigSyncRequestSchema = z.strictObject({
  targetNodeIds: z.array(z.string().min(1).max(100)).min(1).max(100),
});
export type CacheConfigSyncRequest = z.infer<typeof cacheConfigSyncRequestSchema>;

export const cacheConfigSyncResponseSchema = z.object({
  results: z.array(
    z.object({
      nodeId: z.string(),
      /** Saved on the control plane (the node gets it now or at its next pull). */
      saved: z.boolean(),
      /** The node took it at once. */
      applied: z.boolean(),
      error: z.string().optional(),
    }),
  ),
});
export type CacheConfigSyncResponse = z.infer<typeof cacheConfigSyncResponseSchema>;

/** What the config service pushes to a node, and what the node pulls. */
/**
 * A drive the multithread parameters (`vfs.driveThreads`) may name: a mount of a storage node that is not a
 * local folder (WebDAV, DRIVE_A, DRIVE_B). `driveId` is the mount id.
 */
export const cacheDriveSchema = z.object({
  driveId: z.string(),
  name: z.string(),
  provider: storageProviderKindSchema,
  /** The storage node that has the mount. */
  storageNodeId: z.string(),
});
export type CacheDrive = z.infer<typeof cacheDriveSchema>;

/** GET …/cache-config/drives: every drive of the storage nodes that answered, and those that did not. */
export const cacheDriveListSchema = z.object({
  drives: z.array(cacheDriveSchema),
  unreachableStorageNodes: z.array(z.string()),
});
export type CacheDriveList = z.infer<typeof cacheDriveListSchema>;

export const nodeCacheConfigPushSchema = z.object({ config: nodeCacheConfigSchema });
export type NodeCacheConfigPush = z.infer<typeof nodeCacheConfigPushSchema>;

/**
 * Popularity of an item for the cache's force rule: distinct accounts that played it in the last 24 hours
 * (the user service's activity log; `GET /api/auth/internal/reports/media-viewers`).
 */
export const mediaViewerCountQuerySchema = z.object({ mediaId: z.string().min(1).max(200) });
export const mediaViewerCountResponseSchema = z.object({
  mediaId: z.string(),
  viewers: z.number().int().nonnegative(),
  /** Start of the counted window (ISO time); it ends at the answer. */
  since: z.string(),
});
export type MediaViewerCountResponse = z.infer<typeof mediaViewerCountResponseSchema>;
