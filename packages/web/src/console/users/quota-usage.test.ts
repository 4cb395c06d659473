import type { QuotaUsage } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { sortUsage, usageColor, usagePercent } from './quota-usage.js';

const quota = (fields: Partial<QuotaUsage>): QuotaUsage => ({
  scope: 'total',
  enabled: true,
  amount: 1,
  unit: 'GB',
  period: 'month',
  limitBytes: 1000,
  usedBytes: 0,
  periodStart: '2025-01-01T00:00:00+08:00',
  periodEnd: '2025-02-01T00:00:00+08:00',
  exhausted: false,
  ...fields,
});

describe('usagePercent', () => {
  it('is the share of the limit used', () => {
    expect(usagePercent(250, 1000)).toBe(25);
    expect(usagePercent(0, 1000)).toBe(0);
  });

  it('stays within 0–100', () => {
    expect(usagePercent(5000, 1000)).toBe(100);
    expect(usagePercent(-5, 1000)).toBe(0);
    expect(usagePercent(5, 0)).toBe(100);
  });
});

describe('usageColor', () => {
  it('follows enforcement and use', () => {
    expect(usageColor(quota({ usedBytes: 100 }))).toBe('blue');
    expect(usageColor(quota({ usedBytes: 800 }))).toBe('orange');
    expect(usageColor(quota({ usedBytes: 1000 }))).toBe('red');
    expect(usageColor(quota({ usedBytes: 10, exhausted: true }))).toBe('red');
    expect(usageColor(quota({ usedBytes: 2000, enabled: false }))).toBe('gray');
  });
});

describe('sortUsage', () => {
  it('puts the total first, then nodes, then manual addresses', () => {
    const sorted = sortUsage([
      quota({ scope: 'route', kind: 'endpoint', id: 'node-e' }),
      quota({ scope: 'route', kind: 'node', id: 'node-b' }),
      quota({ scope: 'total' }),
      quota({ scope: 'route', kind: 'node', id: 'node-a' }),
    ]);
    expect(sorted.map((item) => item.id ?? 'total')).toEqual(['total', 'node-a', 'node-b', 'node-e']);
  });
});
