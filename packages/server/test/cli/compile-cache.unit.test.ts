import * as nodeModule from 'node:module';
import { describe, expect, it } from 'vitest';
import { enableModuleCompileCache } from '../../src/cli/compile-cache.js';

const STATUSES = (
  nodeModule as {
    constants?: { compileCacheStatus?: { ENABLED: number; ALREADY_ENABLED: number; DISABLED: number } };
  }
).constants?.compileCacheStatus;

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

  it('reports the cache as on only for the statuses Node names so', () => {
    const statuses = STATUSES;
    if (statuses) {
      expect(enableModuleCompileCache(() => ({ status: statuses.ENABLED }))).toBe(true);
      expect(enableModuleCompileCache(() => ({ status: statuses.ALREADY_ENABLED }))).toBe(true);
      expect(enableModuleCompileCache(() => ({ status: statuses.DISABLED }))).toBe(false);
    } else {
      // Node 20: no statuses to compare with, so nothing counts as on.
      expect(enableModuleCompileCache(() => ({ status: 0 }))).toBe(false);
    }
  });
});
