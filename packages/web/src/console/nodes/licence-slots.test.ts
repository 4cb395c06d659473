import { describe, expect, it } from 'vitest';
import { licenceAllowsNodes, slotUsage } from './licence-slots.js';

const slotsUsed = { storage: 2, playAgent: 5 };
const licence = { status: 'ACTIVE' as const, maxStorageNodes: 3, maxPlayAgentNodes: 5 };

describe('slotUsage', () => {
  it('counts the free slots of each worker type', () => {
    expect(slotUsage('svc-control-storage', slotsUsed, licence)).toEqual({ used: 2, max: 3, free: 1 });
    expect(slotUsage('svc-play-agent', slotsUsed, licence)).toEqual({ used: 5, max: 5, free: 0 });
  });

  it('never goes below zero free slots', () => {
    expect(slotUsage('svc-play-agent', { storage: 0, playAgent: 7 }, licence)?.free).toBe(0);
  });

  it('gives manual addresses no slot usage', () => {
    expect(slotUsage('manual-play-agent-endpoint', slotsUsed, licence)).toBeNull();
  });

  it('offers no slot when the licence does not allow new nodes, and keeps GRACE usable', () => {
    expect(slotUsage('svc-control-storage', slotsUsed, { ...licence, status: 'EXPIRED' })).toEqual({
      used: 2,
      max: 0,
      free: 0,
    });
    expect(slotUsage('svc-control-storage', slotsUsed, { ...licence, status: 'GRACE' })?.free).toBe(1);
    expect(licenceAllowsNodes({ status: 'NONE' })).toBe(false);
    expect(licenceAllowsNodes({ status: 'INVALID' })).toBe(false);
  });

  it('leaves the maximum unknown without the licence status', () => {
    expect(slotUsage('svc-control-storage', slotsUsed, undefined)).toEqual({
      used: 2,
      max: null,
      free: null,
    });
  });
});
