import { z } from 'zod';
import {
  DEFAULT_VFS_CACHE_CONFIG,
  mergeVfsCacheConfig,
  vfsCacheConfigPatchSchema,
  vfsCacheConfigSchema,
} from './cache-config.js';

/**
 * The whole cache configuration of one play-agent node, as `GET|PATCH /api/config/nodes/{nodeId}/cache-config`
 * answer and take it: the video cache (`vfs`, cache-config.ts), the image cache and the metadata probing
 * during playback. Field names are ours (docs/vfs-cache.md, docs/image-cache.md).
 */

const MiB = 1024 * 1024;

export const IMAGE_CACHE_LIMITS = {
  minCapacityBytes: 16 * MiB,
  maxCapacityBytes: 1024 * 1024 * MiB,
  maxRetentionHours: 24 * 3650,
  minCleanupIntervalMinutes: 1,
  maxCleanupIntervalMinutes: 24 * 60,
} as const;

const imageFields = {
  enabled: z.boolean(),
  /** Cache directory; null = the node's default (built-in node SVC_PLAY_AGENT_IMAGE_CACHE_DIR, external ./image_cache). */
  directory: z.string().trim().min(1).max(4096).nullable(),
  /** Least recently used images are evicted beyond it. */
  capacityBytes: z
    .number()
    .int()
    .min(IMAGE_CACHE_LIMITS.minCapacityBytes)
    .max(IMAGE_CACHE_LIMITS.maxCapacityBytes),
  /** Images not accessed for this long are removed. */
  retentionHours: z.number().int().min(1).max(IMAGE_CACHE_LIMITS.maxRetentionHours),
  cleanupIntervalMinutes: z
    .number()
    .int()
    .min(IMAGE_CACHE_LIMITS.minCleanupIntervalMinutes)
    .max(IMAGE_CACHE_LIMITS.maxCleanupIntervalMinutes),
};
export const imageCacheConfigSchema = z.strictObject(imageFields);
export type ImageCacheConfig = z.infer<typeof imageCacheConfigSchema>;
export const imageCacheConfigPatchSchema = z.strictObject(imageFields).partial();

export const DEFAULT_IMAGE_CACHE_CONFIG: ImageCacheConfig = {
  enabled: true,
  directory: null,
  capacityBytes: 500 * MiB,
  retentionHours: 7 * 24,
  cleanupIntervalMinutes: 10,
};

/** The spec's allowed values of the metadata probing settings. */
export const METADATA_PROBE_CONCURRENCY = [1, 2] as const;
export const METADATA_PROBE_TRAFFIC_CAP_MB = [8, 16, 32, 64, 256] as const;
export const METADATA_PROBE_START_DELAY_SECONDS = [0, 2, 5, 10] as const;
export const METADATA_PROBE_COOLDOWN_HOURS = [1, 6, 12, 24, 48] as const;
/** Fixed by the spec, not a setting. */
export const METADATA_PROBE_QUEUE_LIMIT = 32;

const oneOf = <T extends readonly number[]>(values: T) =>
  z
    .number()
    .int()
    .refine((value) => (values as readonly number[]).includes(value), {
      message: `must be one of ${values.join(', ')}`,
    });

const metadataProbeFields = {
  /** Complete missing technical metadata in the background while a file is played (needs the probe tool). */
  enabled: z.boolean(),
  maxConcurrency: oneOf(METADATA_PROBE_CONCURRENCY),
  /** Drive bytes one probe may add, in MB (MiB). */
  trafficCapMb: oneOf(METADATA_PROBE_TRAFFIC_CAP_MB),
  startDelaySeconds: oneOf(METADATA_PROBE_START_DELAY_SECONDS),
  failureCooldownHours: oneOf(METADATA_PROBE_COOLDOWN_HOURS),
};
export const metadataProbeConfigSchema = z.strictObject(metadataProbeFields);
export type MetadataProbeConfig = z.infer<typeof metadataProbeConfigSchema>;
export const metadataProbeConfigPatchSchema = z.strictObject(metadataProbeFields).partial();

/** The spec leaves the switch's and the start delay's defaults open: on (it never blocks playback), 5 s. */
export const DEFAULT_METADATA_PROBE_CONFIG: MetadataProbeConfig = {
  enabled: true,
  maxConcurrency: 1,
  trafficCapMb: 32,
  startDelaySeconds: 5,
  failureCooldownHours: 24,
};

/** DRIVE_B CDN address preference (docs/drives.md): when off, DRIVE_B files are read through the storage node. */
export const cdnPreferenceConfigSchema = z.strictObject({ enabled: z.boolean() });
export type CdnPreferenceConfig = z.infer<typeof cdnPreferenceConfigSchema>;
export const DEFAULT_CDN_PREFERENCE_CONFIG: CdnPreferenceConfig = { enabled: true };

export const nodeCacheConfigSchema = z.strictObject({
  vfs: vfsCacheConfigSchema,
  image: imageCacheConfigSchema,
  metadataProbe: metadataProbeConfigSchema,
  cdn: cdnPreferenceConfigSchema,
});
export type NodeCacheConfig = z.infer<typeof nodeCacheConfigSchema>;

/** PATCH body: any section, each with any subset of its fields. */
export const nodeCacheConfigPatchSchema = z.strictObject({
  vfs: vfsCacheConfigPatchSchema.optional(),
  image: imageCacheConfigPatchSchema.optional(),
  metadataProbe: metadataProbeConfigPatchSchema.optional(),
  cdn: cdnPreferenceConfigSchema.partial().optional(),
});
export type NodeCacheConfigPatch = z.infer<typeof nodeCacheConfigPatchSchema>;

export const DEFAULT_NODE_CACHE_CONFIG: NodeCacheConfig = {
  vfs: DEFAULT_VFS_CACHE_CONFIG,
  image: DEFAULT_IMAGE_CACHE_CONFIG,
  metadataProbe: DEFAULT_METADATA_PROBE_CONFIG,
  cdn: DEFAULT_CDN_PREFERENCE_CONFIG,
};

export type NodeCacheMergeResult =
  { ok: true; config: NodeCacheConfig } | { ok: false; issues: { field: string; message: string }[] };

/**
 * Applies a PATCH: absent sections and fields keep their value; the video section follows
 * `mergeVfsCacheConfig` (presets). Every issue names its field as a dot path from the body (`vfs.mode`).
 */
export function mergeNodeCacheConfig(current: NodeCacheConfig, patch: unknown): NodeCacheMergeResult {
  const parsed = nodeCacheConfigPatchSchema.safeParse(patch);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => ({
        field: issue.path.map(String).join('.'),
        message: issue.message,
      })),
    };
  }
  const issues: { field: string; message: string }[] = [];
  let vfs = current.vfs;
  if (parsed.data.vfs) {
    const merged = mergeVfsCacheConfig(current.vfs, parsed.data.vfs);
    if (merged.ok) vfs = merged.config;
    else issues.push(...merged.issues.map((issue) => ({ ...issue, field: `vfs.${issue.field}` })));
  }
  const image = { ...current.image, ...parsed.data.image };
  const metadataProbe = { ...current.metadataProbe, ...parsed.data.metadataProbe };
  const cdn = { ...current.cdn, ...parsed.data.cdn };
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, config: { vfs, image, metadataProbe, cdn } };
}
