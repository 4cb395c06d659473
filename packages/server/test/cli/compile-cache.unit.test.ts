import * as nodeModule from 'node:module';
import { describe, expect, it } from 'vitest';
import { enableModuleCompileCache } from '../../src/cli/compile-cache.js';

const ENABLED = (nodeModule as { constants?: { compileCacheStatus?: { ENABLED: number } } }).constants
  ?.compileCacheStatus?.ENABLED;

describe('module compile cache at start', () => {
  it('starts without the cache where Node lacks it', () => {
    expect(enableModuleCompileCache(null)).toBe(false);
  });

  it('starts without the cache when its folder cannot be made', () => {
    expect(
      enableModuleCompileCache(() => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      }),
    ).toBe(false);
  });

  it('reports a failed status as not enabled', () => {
    expect(enableModuleCompileCache(() => ({ status: -1, message: 'cannot create directory' }))).toBe(false);
  });

  it.runIf(ENABLED !== undefined)('reports the cache Node turned on', () => {
    expect(enableModuleCompileCache(() => ({ status: ENABLED! }))).toBe(true);
  });
});
