import { z } from 'zod';

/**
 * The video file cache (VFS) configuration of one play-agent node (docs/vfs-cache.md, "Settings"). The
 * spec names the settings but not the payload's field names; these are ours. Sizes are bytes, durations
 * have their unit in the name.
 */

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const VFS_CACHE_MODES = ['SMART_STARTUP', 'READ_AHEAD'] as const;
export type VfsCacheMode = (typeof VFS_CACHE_MODES)[number];

export const VFS_CACHE_PRESETS = ['SPACE_SAVER', 'BALANCED', 'STABLE'] as const;
export type VfsCachePreset = (typeof VFS_CACHE_PRESETS)[number];

/** The expert values a preset sets. Editing one of them away from its preset shows the preset as custom. */
export interface VfsExpertValues {
  minHeadBytes: number;
  minTailBytes: number;
  perFileHardCapBytes: number;
  probeBudgetBytes: number;
}
export const VFS_EXPERT_FIELDS = [
  'minHeadBytes',
  'minTailBytes',
  'perFileHardCapBytes',
  'probeBudgetBytes',
] as const satisfies readonly (keyof VfsExpertValues)[];

/** Per-file caps of the spec (16, 32, 64 MB); the head, tail and probe shares are our choice. */
export const VFS_PRESET_VALUES: Record<VfsCachePreset, VfsExpertValues> = {
  SPACE_SAVER: {
    perFileHardCapBytes: 16 * MiB,
    minHeadBytes: 4 * MiB,
    minTailBytes: 2 * MiB,
    probeBudgetBytes: 4 * MiB,
  },
  BALANCED: {
    perFileHardCapBytes: 32 * MiB,
    minHeadBytes: 8 * MiB,
    minTailBytes: 4 * MiB,
    probeBudgetBytes: 8 * MiB,
  },
  STABLE: {
    perFileHardCapBytes: 64 * MiB,
    minHeadBytes: 16 * MiB,
    minTailBytes: 8 * MiB,
    probeBudgetBytes: 16 * MiB,
  },
};

export const VFS_LIMITS = {
  /** Smallest cache disk capacity: room for a few STABLE entries. */
  minCapacityBytes: 256 * MiB,
  maxCapacityBytes: 64 * 1024 * GiB,
  maxRetentionHours: 24 * 3650,
  minCleanupIntervalMinutes: 1,
  maxCleanupIntervalMinutes: 24 * 60,
  maxReadAheadBytes: 4 * GiB,
  /** −1 is unlimited; otherwise 1 to this. */
  maxBackgroundConcurrency: 64,
  maxSkipReleaseDays: 36_500,
  maxForcePopularViewers: 1_000_000,
  /** Smallest head or tail: a container header and a first key frame. */
  minRangeBytes: 64 * 1024,
  maxPerFileHardCapBytes: 4 * GiB,
  minThreads: 1,
  maxThreads: 32,
  minChunkBytes: 256 * 1024,
  maxChunkBytes: 256 * MiB,
} as const;

const bytes = (min: number, max: number) => z.number().int().min(min).max(max);

/** Multithread download parameters of one enabled non-local drive. */
export const vfsDriveThreadsSchema = z.object({
  /** The storage drive (mount) id. */
  driveId: z.string().trim().min(1).max(128),
  /** Parallel ranged downloads of one file (1 to 32). */
  threads: z.number().int().min(VFS_LIMITS.minThreads).max(VFS_LIMITS.maxThreads),
  /** Size of one ranged download. */
  chunkSizeBytes: bytes(VFS_LIMITS.minChunkBytes, VFS_LIMITS.maxChunkBytes),
});
export type VfsDriveThreads = z.infer<typeof vfsDriveThreadsSchema>;

/** Field shapes, without the cross-field rules (shared by the full and the PATCH schema). */
const fields = {
  /** Enable the VFS cache. Off: every byte comes from the source, as without a cache. */
  enabled: z.boolean(),
  mode: z.enum(VFS_CACHE_MODES),
  /** A named preset, or custom once an expert value differs from every preset. */
  preset: z.enum([...VFS_CACHE_PRESETS, 'custom']),
  /** Cache the byte ranges the probe tool really reads (needs the probe tool on the node). */
  smartProbe: z.boolean(),
  /** Total size of the video cache; least recently used entries are evicted beyond it. */
  capacityBytes: bytes(VFS_LIMITS.minCapacityBytes, VFS_LIMITS.maxCapacityBytes),
  /** Cache directory; null = the node's default (see docs/vfs-cache.md). */
  directory: z.string().trim().min(1).max(4096).nullable(),
  /** Entries not accessed for this long are removed. */
  retentionHours: z.number().int().min(1).max(VFS_LIMITS.maxRetentionHours),
  /** Period of the eviction check. */
  cleanupIntervalMinutes: z
    .number()
    .int()
    .min(VFS_LIMITS.minCleanupIntervalMinutes)
    .max(VFS_LIMITS.maxCleanupIntervalMinutes),
  /** READ_AHEAD: per-stream read-ahead window; 0 = download the whole file in the background. */
  readAheadBytes: bytes(0, VFS_LIMITS.maxReadAheadBytes),
  /** Node-wide cap on simultaneous whole-file downloads; −1 = unlimited. */
  backgroundConcurrency: z
    .number()
    .int()
    .refine((value) => value === -1 || (value >= 1 && value <= VFS_LIMITS.maxBackgroundConcurrency), {
      message: `must be -1 (unlimited) or 1 to ${VFS_LIMITS.maxBackgroundConcurrency}`,
    }),
  /** 0 = off; else titles released more than this many days ago play without cache. */
  skipReleasedBeforeDays: z.number().int().min(0).max(VFS_LIMITS.maxSkipReleaseDays),
  /** 0 = off; else a title with at least this many viewers in the last day is cached (wins over the skip). */
  forcePopularViewers: z.number().int().min(0).max(VFS_LIMITS.maxForcePopularViewers),
  /** Fallback head when the bitrate is low or unknown. */
  minHeadBytes: bytes(VFS_LIMITS.minRangeBytes, VFS_LIMITS.maxPerFileHardCapBytes),
  /** Fallback tail when the index position is unknown. */
  minTailBytes: bytes(VFS_LIMITS.minRangeBytes, VFS_LIMITS.maxPerFileHardCapBytes),
  /** Upper bound of everything one file keeps in SMART_STARTUP (head, index, probe ranges). */
  perFileHardCapBytes: bytes(VFS_LIMITS.minRangeBytes * 2, VFS_LIMITS.maxPerFileHardCapBytes),
  /** Drive bytes one probe may add; still bounded by the per-file hard cap. */
  probeBudgetBytes: bytes(0, VFS_LIMITS.maxPerFileHardCapBytes),
  /** Multithread download parameters per enabled non-local drive. */
  driveThreads: z.array(vfsDriveThreadsSchema).max(256),
};

type Ctx = z.core.$RefinementCtx;

function crossFieldRules(value: Partial<VfsCacheConfig>, ctx: Ctx): void {
  const cap = value.perFileHardCapBytes;
  if (cap !== undefined && value.minHeadBytes !== undefined && value.minTailBytes !== undefined) {
    if (value.minHeadBytes + value.minTailBytes > cap) {
      ctx.addIssue({
        code: 'custom',
        path: ['perFileHardCapBytes'],
        message: 'must be at least minHeadBytes + minTailBytes',
      });
    }
  }
  if (cap !== undefined && value.probeBudgetBytes !== undefined && value.probeBudgetBytes > cap) {
    ctx.addIssue({
      code: 'custom',
      path: ['probeBudgetBytes'],
      message: 'must not exceed perFileHardCapBytes',
    });
  }
  if (cap !== undefined && value.capacityBytes !== undefined && cap > value.capacityBytes) {
    ctx.addIssue({ code: 'custom', path: ['perFileHardCapBytes'], message: 'must not exceed capacityBytes' });
  }
  const seen = new Set<string>();
  value.driveThreads?.forEach((drive, index) => {
    if (seen.has(drive.driveId)) {
      ctx.addIssue({
        code: 'custom',
        path: ['driveThreads', index, 'driveId'],
        message: 'each drive is listed once',
      });
    }
    seen.add(drive.driveId);
  });
  const preset = value.preset;
  if (preset !== undefined && preset !== 'custom' && hasExpert(value)) {
    if (presetOf(value) !== preset) {
      ctx.addIssue({
        code: 'custom',
        path: ['preset'],
        message: 'the expert values differ from this preset: the preset is custom',
      });
    }
  }
}

function hasExpert(value: Partial<VfsExpertValues>): value is VfsExpertValues {
  return VFS_EXPERT_FIELDS.every((field) => value[field] !== undefined);
}

/** The whole configuration as stored and answered (GET). */
export const vfsCacheConfigSchema = z.strictObject(fields).superRefine(crossFieldRules);
export type VfsCacheConfig = z.infer<typeof vfsCacheConfigSchema>;

/**
 * PATCH body: any subset of the fields. Choosing a named preset sets its expert values (unless the same
 * PATCH sets some of them too); see `mergeVfsCacheConfig`.
 */
export const vfsCacheConfigPatchSchema = z.strictObject(fields).partial();
export type VfsCacheConfigPatch = z.infer<typeof vfsCacheConfigPatchSchema>;

export const DEFAULT_VFS_CACHE_CONFIG: VfsCacheConfig = {
  enabled: false,
  mode: 'SMART_STARTUP',
  preset: 'BALANCED',
  smartProbe: true,
  capacityBytes: 20 * GiB,
  directory: null,
  retentionHours: 7 * 24,
  cleanupIntervalMinutes: 10,
  readAheadBytes: 128 * MiB,
  backgroundConcurrency: 4,
  skipReleasedBeforeDays: 0,
  forcePopularViewers: 0,
  ...VFS_PRESET_VALUES.BALANCED,
  driveThreads: [],
};

/** The named preset whose expert values these are, else custom. */
export function presetOf(values: VfsExpertValues): VfsCachePreset | 'custom' {
  for (const preset of VFS_CACHE_PRESETS) {
    const expected = VFS_PRESET_VALUES[preset];
    if (VFS_EXPERT_FIELDS.every((field) => values[field] === expected[field])) return preset;
  }
  return 'custom';
}

export type VfsMergeResult =
  { ok: true; config: VfsCacheConfig } | { ok: false; issues: { field: string; message: string }[] };

function issuesOf(error: z.ZodError): { field: string; message: string }[] {
  return error.issues.map((issue) => ({ field: issue.path.map(String).join('.'), message: issue.message }));
}

/**
 * Applies a PATCH to the current configuration. Rules: fields not in the PATCH keep their value; a named
 * preset in the PATCH first sets its four expert values, then expert fields of the same PATCH override
 * them; `preset: 'custom'` keeps the current expert values. The preset is then derived from the expert
 * values (a named preset when they all equal one, else custom), and the result is validated as a whole:
 * every issue names its field (dot path).
 */
export function mergeVfsCacheConfig(current: VfsCacheConfig, patch: unknown): VfsMergeResult {
  const parsed = vfsCacheConfigPatchSchema.safeParse(patch);
  if (!parsed.success) return { ok: false, issues: issuesOf(parsed.error) };
  const { preset, ...rest } = parsed.data;
  const base: VfsCacheConfig =
    preset !== undefined && preset !== 'custom'
      ? { ...current, ...VFS_PRESET_VALUES[preset] }
      : { ...current };
  const merged = { ...base, ...rest };
  merged.preset = presetOf(merged);
  const checked = vfsCacheConfigSchema.safeParse(merged);
  if (!checked.success) return { ok: false, issues: issuesOf(checked.error) };
  return { ok: true, config: checked.data };
}
