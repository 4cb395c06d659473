import {
  DEFAULT_VFS_CACHE_CONFIG,
  mergeVfsCacheConfig,
  presetOf,
  VFS_PRESET_VALUES,
  vfsCacheConfigSchema,
} from '@svc/contracts';
import { describe, expect, it } from 'vitest';

const MiB = 1024 * 1024;

function fieldsOf(result: ReturnType<typeof mergeVfsCacheConfig>): string[] {
  return result.ok ? [] : result.issues.map((issue) => issue.field);
}

describe('the VFS cache configuration', () => {
  it('has valid defaults: disabled, SMART_STARTUP, BALANCED (32 MB per file), concurrency 4', () => {
    expect(vfsCacheConfigSchema.parse(DEFAULT_VFS_CACHE_CONFIG)).toEqual(DEFAULT_VFS_CACHE_CONFIG);
    expect(DEFAULT_VFS_CACHE_CONFIG).toMatchObject({
      enabled: false,
      mode: 'SMART_STARTUP',
      preset: 'BALANCED',
      perFileHardCapBytes: 32 * MiB,
      backgroundConcurrency: 4,
    });
    expect(Object.values(VFS_PRESET_VALUES).map((values) => values.perFileHardCapBytes)).toEqual([
      16 * MiB,
      32 * MiB,
      64 * MiB,
    ]);
  });

  it('applies a preset with its expert values, and shows custom once one of them differs', () => {
    const saver = mergeVfsCacheConfig(DEFAULT_VFS_CACHE_CONFIG, { preset: 'SPACE_SAVER' });
    expect(saver).toEqual({
      ok: true,
      config: { ...DEFAULT_VFS_CACHE_CONFIG, ...VFS_PRESET_VALUES.SPACE_SAVER, preset: 'SPACE_SAVER' },
    });
    if (!saver.ok) return;
    const edited = mergeVfsCacheConfig(saver.config, { minHeadBytes: 5 * MiB });
    expect(edited.ok && edited.config.preset).toBe('custom');
    expect(edited.ok && edited.config.perFileHardCapBytes).toBe(16 * MiB);
    // Setting the value back to the preset's shows the preset again.
    if (!edited.ok) return;
    const back = mergeVfsCacheConfig(edited.config, { minHeadBytes: 4 * MiB });
    expect(back.ok && back.config.preset).toBe('SPACE_SAVER');
    // A preset with an expert value in the same PATCH: the value wins, the preset is custom.
    const both = mergeVfsCacheConfig(DEFAULT_VFS_CACHE_CONFIG, { preset: 'STABLE', probeBudgetBytes: MiB });
    expect(both.ok && both.config).toMatchObject({
      preset: 'custom',
      perFileHardCapBytes: 64 * MiB,
      probeBudgetBytes: MiB,
    });
    // "custom" keeps the current values.
    const custom = mergeVfsCacheConfig(DEFAULT_VFS_CACHE_CONFIG, { preset: 'custom' });
    expect(custom.ok && custom.config.preset).toBe('BALANCED');
    expect(presetOf(VFS_PRESET_VALUES.STABLE)).toBe('STABLE');
  });

  it('refuses invalid values naming the field', () => {
    const current = DEFAULT_VFS_CACHE_CONFIG;
    expect(fieldsOf(mergeVfsCacheConfig(current, { backgroundConcurrency: 0 }))).toEqual([
      'backgroundConcurrency',
    ]);
    expect(fieldsOf(mergeVfsCacheConfig(current, { backgroundConcurrency: -1 }))).toEqual([]);
    expect(fieldsOf(mergeVfsCacheConfig(current, { mode: 'FULL' }))).toEqual(['mode']);
    expect(fieldsOf(mergeVfsCacheConfig(current, { capacityBytes: 1000 }))).toEqual(['capacityBytes']);
    expect(fieldsOf(mergeVfsCacheConfig(current, { retentionHours: 0 }))).toEqual(['retentionHours']);
    expect(fieldsOf(mergeVfsCacheConfig(current, { readAheadBytes: -1 }))).toEqual(['readAheadBytes']);
    expect(fieldsOf(mergeVfsCacheConfig(current, { unknown: true }))).toEqual(['']);
    expect(fieldsOf(mergeVfsCacheConfig(current, { minHeadBytes: 30 * MiB }))).toEqual([
      'perFileHardCapBytes',
    ]);
    expect(fieldsOf(mergeVfsCacheConfig(current, { probeBudgetBytes: 33 * MiB }))).toEqual([
      'probeBudgetBytes',
    ]);
    expect(
      fieldsOf(
        mergeVfsCacheConfig(current, {
          driveThreads: [
            { driveId: 'drive-a', threads: 33, chunkSizeBytes: MiB },
            { driveId: 'drive-b', threads: 4, chunkSizeBytes: 1 },
          ],
        }),
      ),
    ).toEqual(['driveThreads.0.threads', 'driveThreads.1.chunkSizeBytes']);
    expect(
      fieldsOf(
        mergeVfsCacheConfig(current, {
          driveThreads: [
            { driveId: 'drive-a', threads: 32, chunkSizeBytes: MiB },
            { driveId: 'drive-a', threads: 1, chunkSizeBytes: MiB },
          ],
        }),
      ),
    ).toEqual(['driveThreads.1.driveId']);
  });

  it('refuses a stored configuration whose named preset does not match its values', () => {
    const result = vfsCacheConfigSchema.safeParse({ ...DEFAULT_VFS_CACHE_CONFIG, preset: 'STABLE' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['preset']);
  });
});
