import {
  presetOf,
  VFS_PRESET_VALUES,
  type MetadataProbeConfig,
  type NodeCacheConfig,
  type NodeCacheConfigPatch,
  type VfsCachePreset,
} from '@svc/contracts';
import { ApiError } from '../../api/client.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/**
 * The cache form's values: sizes in the unit the form shows them (GiB for the video cache's capacity,
 * MiB elsewhere), the directories as text (empty = the node's default).
 */
export interface CacheFormValues {
  vfs: {
    enabled: boolean;
    mode: NodeCacheConfig['vfs']['mode'];
    smartProbe: boolean;
    capacityGb: number;
    directory: string;
    retentionHours: number;
    cleanupIntervalMinutes: number;
    readAheadMb: number;
    backgroundConcurrency: number;
    skipReleasedBeforeDays: number;
    forcePopularViewers: number;
    minHeadMb: number;
    minTailMb: number;
    perFileHardCapMb: number;
    probeBudgetMb: number;
  };
  image: {
    enabled: boolean;
    directory: string;
    capacityMb: number;
    retentionHours: number;
    cleanupIntervalMinutes: number;
  };
  metadataProbe: MetadataProbeConfig;
}

export type ExpertMbField = 'minHeadMb' | 'minTailMb' | 'perFileHardCapMb' | 'probeBudgetMb';

const toMb = (bytes: number) => bytes / MiB;
const fromMb = (mb: number) => Math.round(mb * MiB);

export function formValuesOf(config: NodeCacheConfig): CacheFormValues {
  const { vfs, image } = config;
  return {
    vfs: {
      enabled: vfs.enabled,
      mode: vfs.mode,
      smartProbe: vfs.smartProbe,
      capacityGb: vfs.capacityBytes / GiB,
      directory: vfs.directory ?? '',
      retentionHours: vfs.retentionHours,
      cleanupIntervalMinutes: vfs.cleanupIntervalMinutes,
      readAheadMb: toMb(vfs.readAheadBytes),
      backgroundConcurrency: vfs.backgroundConcurrency,
      skipReleasedBeforeDays: vfs.skipReleasedBeforeDays,
      forcePopularViewers: vfs.forcePopularViewers,
      minHeadMb: toMb(vfs.minHeadBytes),
      minTailMb: toMb(vfs.minTailBytes),
      perFileHardCapMb: toMb(vfs.perFileHardCapBytes),
      probeBudgetMb: toMb(vfs.probeBudgetBytes),
    },
    image: {
      enabled: image.enabled,
      directory: image.directory ?? '',
      capacityMb: toMb(image.capacityBytes),
      retentionHours: image.retentionHours,
      cleanupIntervalMinutes: image.cleanupIntervalMinutes,
    },
    metadataProbe: { ...config.metadataProbe },
  };
}

function expertBytes(vfs: CacheFormValues['vfs']) {
  return {
    minHeadBytes: fromMb(vfs.minHeadMb),
    minTailBytes: fromMb(vfs.minTailMb),
    perFileHardCapBytes: fromMb(vfs.perFileHardCapMb),
    probeBudgetBytes: fromMb(vfs.probeBudgetMb),
  };
}

/** The preset the expert values stand for: a named one when all four equal it, else custom. */
export function shownPreset(values: CacheFormValues): VfsCachePreset | 'custom' {
  return presetOf(expertBytes(values.vfs));
}

/** Choosing a named preset sets its four expert values; custom keeps them as they are. */
export function choosePreset(values: CacheFormValues, preset: VfsCachePreset | 'custom'): CacheFormValues {
  if (preset === 'custom') return values;
  const expert = VFS_PRESET_VALUES[preset];
  return {
    ...values,
    vfs: {
      ...values.vfs,
      minHeadMb: toMb(expert.minHeadBytes),
      minTailMb: toMb(expert.minTailBytes),
      perFileHardCapMb: toMb(expert.perFileHardCapBytes),
      probeBudgetMb: toMb(expert.probeBudgetBytes),
    },
  };
}

const blankToNull = (text: string) => (text.trim() === '' ? null : text.trim());

/** The PATCH that saves the whole form (the drives' thread settings are not on this form and stay). */
export function patchOf(values: CacheFormValues): NodeCacheConfigPatch {
  const { vfs, image } = values;
  return {
    vfs: {
      enabled: vfs.enabled,
      mode: vfs.mode,
      preset: shownPreset(values),
      smartProbe: vfs.smartProbe,
      capacityBytes: Math.round(vfs.capacityGb * GiB),
      directory: blankToNull(vfs.directory),
      retentionHours: vfs.retentionHours,
      cleanupIntervalMinutes: vfs.cleanupIntervalMinutes,
      readAheadBytes: fromMb(vfs.readAheadMb),
      backgroundConcurrency: vfs.backgroundConcurrency,
      skipReleasedBeforeDays: vfs.skipReleasedBeforeDays,
      forcePopularViewers: vfs.forcePopularViewers,
      ...expertBytes(vfs),
    },
    image: {
      enabled: image.enabled,
      directory: blankToNull(image.directory),
      capacityBytes: fromMb(image.capacityMb),
      retentionHours: image.retentionHours,
      cleanupIntervalMinutes: image.cleanupIntervalMinutes,
    },
    metadataProbe: { ...values.metadataProbe },
  };
}

export const DISK_TYPES = ['HDD', 'SSD', 'unknown'] as const;
export type DiskType = (typeof DISK_TYPES)[number];

/** Read-ahead windows above these sizes (MiB) risk filling the disk's queue on that kind of disk. */
export const READ_AHEAD_WARNING_MB: Record<DiskType, number> = { HDD: 256, SSD: 512, unknown: 384 };

/** The limit a read-ahead window exceeds on this disk type, or null when it is within it. */
export function readAheadWarning(readAheadMb: number, diskType: DiskType): number | null {
  const limit = READ_AHEAD_WARNING_MB[diskType];
  return readAheadMb > limit ? limit : null;
}

/** Form field of each API field (the PATCH body's dot path) whose name differs on the form. */
const FORM_FIELD: Record<string, string> = {
  'vfs.capacityBytes': 'vfs.capacityGb',
  'vfs.readAheadBytes': 'vfs.readAheadMb',
  'vfs.minHeadBytes': 'vfs.minHeadMb',
  'vfs.minTailBytes': 'vfs.minTailMb',
  'vfs.perFileHardCapBytes': 'vfs.perFileHardCapMb',
  'vfs.probeBudgetBytes': 'vfs.probeBudgetMb',
  'image.capacityBytes': 'image.capacityMb',
};

function apiField(detail: Record<string, unknown>): string | null {
  if (typeof detail['field'] === 'string' && detail['field'] !== '') return detail['field'];
  const path = detail['path'];
  if (typeof path === 'string' && path.startsWith('/')) return path.slice(1).split('/').join('.');
  return null;
}

/** The server's refusal of a save as messages per form field (first message of each), or null. */
export function serverFieldErrors(error: unknown): Record<string, string> | null {
  if (!(error instanceof ApiError) || error.code !== 'VALIDATION_FAILED' || !Array.isArray(error.details)) {
    return null;
  }
  const errors: Record<string, string> = {};
  for (const item of error.details as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const detail = item as Record<string, unknown>;
    const field = apiField(detail);
    if (!field) continue;
    errors[FORM_FIELD[field] ?? field] ??= typeof detail['message'] === 'string' ? detail['message'] : '';
  }
  return Object.keys(errors).length > 0 ? errors : null;
}
