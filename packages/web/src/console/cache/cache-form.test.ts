import { describe, expect, it } from 'vitest';
import { DEFAULT_NODE_CACHE_CONFIG, nodeCacheConfigPatchSchema } from '@svc/contracts';
import { ApiError } from '../../api/client.js';
import {
  choosePreset,
  formValuesOf,
  patchOf,
  readAheadWarning,
  serverFieldErrors,
  shownPreset,
} from './cache-form.js';

const defaults = () => formValuesOf(DEFAULT_NODE_CACHE_CONFIG);

describe('cache form presets', () => {
  it('shows the named preset while the expert values equal it', () => {
    expect(shownPreset(defaults())).toBe('BALANCED');
    expect(shownPreset(choosePreset(defaults(), 'STABLE'))).toBe('STABLE');
  });

  it('shows custom once an expert value differs, and the preset again when set back', () => {
    const values = defaults();
    const edited = { ...values, vfs: { ...values.vfs, minTailMb: 5 } };
    expect(shownPreset(edited)).toBe('custom');
    expect(shownPreset({ ...edited, vfs: { ...edited.vfs, minTailMb: 4 } })).toBe('BALANCED');
  });

  it('choosing a preset sets its four expert values; custom keeps them', () => {
    const saver = choosePreset(defaults(), 'SPACE_SAVER');
    expect(saver.vfs).toMatchObject({ minHeadMb: 4, minTailMb: 2, perFileHardCapMb: 16, probeBudgetMb: 4 });
    const edited = { ...saver, vfs: { ...saver.vfs, probeBudgetMb: 3 } };
    expect(choosePreset(edited, 'custom')).toBe(edited);
  });
});

describe('cache form patch', () => {
  it('round-trips the defaults into a PATCH the API accepts', () => {
    const patch = patchOf(defaults());
    expect(nodeCacheConfigPatchSchema.safeParse(patch).success).toBe(true);
    const { driveThreads: _kept, ...formFields } = DEFAULT_NODE_CACHE_CONFIG.vfs;
    expect(patch.vfs).toEqual(formFields);
    expect(patch.image).toEqual(DEFAULT_NODE_CACHE_CONFIG.image);
    expect(patch.metadataProbe).toEqual(DEFAULT_NODE_CACHE_CONFIG.metadataProbe);
    expect(patch.vfs).not.toHaveProperty('driveThreads');
  });

  it('sends an empty directory as the node default and custom after an expert edit', () => {
    const values = defaults();
    const patch = patchOf({
      ...values,
      vfs: { ...values.vfs, directory: '  ', perFileHardCapMb: 40 },
      image: { ...values.image, directory: '/srv/images' },
    });
    expect(patch.vfs?.directory).toBeNull();
    expect(patch.vfs?.preset).toBe('custom');
    expect(patch.vfs?.perFileHardCapBytes).toBe(40 * 1024 * 1024);
    expect(patch.image?.directory).toBe('/srv/images');
  });
});

describe('read-ahead warning', () => {
  it('warns above the limit of the chosen disk type only', () => {
    expect(readAheadWarning(256, 'HDD')).toBeNull();
    expect(readAheadWarning(257, 'HDD')).toBe(256);
    expect(readAheadWarning(400, 'SSD')).toBeNull();
    expect(readAheadWarning(513, 'SSD')).toBe(512);
    expect(readAheadWarning(384, 'unknown')).toBeNull();
    expect(readAheadWarning(385, 'unknown')).toBe(384);
  });
});

describe('server field errors', () => {
  it('puts each refusal at its form field (dot field or JSON pointer)', () => {
    const error = new ApiError(400, 'VALIDATION_FAILED', 'bad', [
      { path: '/vfs/perFileHardCapBytes', field: 'vfs.perFileHardCapBytes', message: 'too small' },
      { path: '/image/retentionHours', message: 'too big' },
      { path: '/vfs/capacityBytes', message: 'first' },
      { path: '/vfs/capacityBytes', message: 'second' },
    ]);
    expect(serverFieldErrors(error)).toEqual({
      'vfs.perFileHardCapMb': 'too small',
      'image.retentionHours': 'too big',
      'vfs.capacityGb': 'first',
    });
  });

  it('is null for other errors', () => {
    expect(serverFieldErrors(new ApiError(503, 'NODE_UNREACHABLE', 'down'))).toBeNull();
    expect(serverFieldErrors(new Error('x'))).toBeNull();
  });
});
