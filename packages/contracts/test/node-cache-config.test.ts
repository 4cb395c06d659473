import { describe, expect, it } from 'vitest';
import {
  DEFAULT_NODE_CACHE_CONFIG,
  METADATA_PROBE_TRAFFIC_CAP_MB,
  mergeNodeCacheConfig,
  nodeCacheConfigSchema,
  VFS_PRESET_VALUES,
} from '../src/index.js';

describe('node cache configuration', () => {
  it('has defaults that pass its own schema, with the spec image cache figures', () => {
    expect(nodeCacheConfigSchema.safeParse(DEFAULT_NODE_CACHE_CONFIG).success).toBe(true);
    expect(DEFAULT_NODE_CACHE_CONFIG.image.capacityBytes).toBe(500 * 1024 * 1024);
    expect(DEFAULT_NODE_CACHE_CONFIG.image.retentionHours).toBe(7 * 24);
    expect(DEFAULT_NODE_CACHE_CONFIG.image.cleanupIntervalMinutes).toBe(10);
    expect(DEFAULT_NODE_CACHE_CONFIG.metadataProbe.trafficCapMb).toBe(32);
    expect(DEFAULT_NODE_CACHE_CONFIG.metadataProbe.failureCooldownHours).toBe(24);
  });

  it('keeps absent sections and fields, and applies a preset inside the video section', () => {
    const result = mergeNodeCacheConfig(DEFAULT_NODE_CACHE_CONFIG, {
      vfs: { enabled: true, preset: 'STABLE' },
      image: { capacityBytes: 64 * 1024 * 1024 },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.vfs.enabled).toBe(true);
    expect(result.config.vfs.perFileHardCapBytes).toBe(VFS_PRESET_VALUES.STABLE.perFileHardCapBytes);
    expect(result.config.image.capacityBytes).toBe(64 * 1024 * 1024);
    expect(result.config.image.retentionHours).toBe(DEFAULT_NODE_CACHE_CONFIG.image.retentionHours);
    expect(result.config.metadataProbe).toEqual(DEFAULT_NODE_CACHE_CONFIG.metadataProbe);
  });

  it('names the refused field as a path from the body', () => {
    const wrongCap = mergeNodeCacheConfig(DEFAULT_NODE_CACHE_CONFIG, { metadataProbe: { trafficCapMb: 48 } });
    expect(wrongCap).toEqual({
      ok: false,
      issues: [{ field: 'metadataProbe.trafficCapMb', message: expect.stringContaining('8, 16') as string }],
    });
    const wrongMode = mergeNodeCacheConfig(DEFAULT_NODE_CACHE_CONFIG, { vfs: { mode: 'FAST' } });
    expect(wrongMode.ok).toBe(false);
    if (!wrongMode.ok) expect(wrongMode.issues.map((issue) => issue.field)).toEqual(['vfs.mode']);
    const crossField = mergeNodeCacheConfig(DEFAULT_NODE_CACHE_CONFIG, {
      vfs: { minHeadBytes: 30 * 1024 * 1024 },
    });
    expect(crossField.ok).toBe(false);
    if (!crossField.ok) expect(crossField.issues[0]?.field).toBe('vfs.perFileHardCapBytes');
  });

  it('refuses unknown sections and unknown fields', () => {
    const unknownSection = mergeNodeCacheConfig(DEFAULT_NODE_CACHE_CONFIG, { dns: {} });
    expect(unknownSection.ok).toBe(false);
    // The CDN preference switch is a section of its own.
    const cdn = mergeNodeCacheConfig(DEFAULT_NODE_CACHE_CONFIG, { cdn: { enabled: false } });
    expect(cdn.ok && cdn.config.cdn).toEqual({ enabled: false });
    expect(mergeNodeCacheConfig(DEFAULT_NODE_CACHE_CONFIG, { cdn: { enabled: 'no' } }).ok).toBe(false);
    const unknownField = mergeNodeCacheConfig(DEFAULT_NODE_CACHE_CONFIG, { image: { sizeMb: 3 } });
    expect(unknownField.ok).toBe(false);
    if (!unknownField.ok) expect(unknownField.issues[0]?.field).toBe('image');
  });

  it('accepts every allowed traffic cap', () => {
    for (const trafficCapMb of METADATA_PROBE_TRAFFIC_CAP_MB) {
      expect(mergeNodeCacheConfig(DEFAULT_NODE_CACHE_CONFIG, { metadataProbe: { trafficCapMb } }).ok).toBe(
        true,
      );
    }
  });
});
