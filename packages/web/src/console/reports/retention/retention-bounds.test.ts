import { describe, expect, it } from 'vitest';
import { retentionBounds } from './retention-bounds.js';

describe('retention bounds', () => {
  it("takes the backend's bounds", () => {
    expect(retentionBounds({ min: 14, max: 365 })).toEqual({ min: 14, max: 365 });
  });
  it('falls back to 7–3650 days when they are missing or unusable', () => {
    expect(retentionBounds({})).toEqual({ min: 7, max: 3650 });
    expect(retentionBounds({ min: null, max: 'x' })).toEqual({ min: 7, max: 3650 });
    expect(retentionBounds({ min: 30 })).toEqual({ min: 30, max: 3650 });
    expect(retentionBounds({ min: 500, max: 100 })).toEqual({ min: 7, max: 3650 });
    expect(retentionBounds({ min: 1.5, max: 0 })).toEqual({ min: 7, max: 3650 });
  });
});
