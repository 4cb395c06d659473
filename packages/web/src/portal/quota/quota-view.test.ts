import type { PlaybackRoute, QuotaUsage } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { percentLabel, quotaViews, usageColor, usagePercent } from './quota-view.js';

const GiB = 2 ** 30;
const quota = (overrides: Partial<QuotaUsage>): QuotaUsage => ({
  scope: 'total',
  enabled: true,
  amount: 10,
  unit: 'GB',
  period: 'month',
  limitBytes: 10 * GiB,
  usedBytes: 0,
  periodStart: '2025-01-01T00:00:00+08:00',
  periodEnd: '2025-02-01T00:00:00+08:00',
  exhausted: false,
  ...overrides,
});
const route = (kind: PlaybackRoute['kind'], id: string, name: string): PlaybackRoute => ({
  kind,
  id,
  name,
  url: null,
  source: kind === 'node' ? 'external-address' : 'manual-address',
  health: 'online',
});

describe('usagePercent', () => {
  it('is the used share of the limit, capped at 100', () => {
    expect(usagePercent(GiB, 4 * GiB)).toBe(25);
    expect(usagePercent(12 * GiB, 10 * GiB)).toBe(100);
    expect(usagePercent(0, 10 * GiB)).toBe(0);
  });

  it('handles a zero limit', () => {
    expect(usagePercent(1, 0)).toBe(100);
    expect(usagePercent(0, 0)).toBe(0);
  });
});

describe('percentLabel', () => {
  it('shows whole percent, and <1 for a little use', () => {
    expect(percentLabel(0, GiB)).toBe('0');
    expect(percentLabel(1024, GiB)).toBe('<1');
    expect(percentLabel(GiB / 2 + 1, GiB)).toBe('50');
    expect(percentLabel(2 * GiB, GiB)).toBe('100');
  });
});

describe('usageColor', () => {
  it('follows the share and the state', () => {
    expect(usageColor(quota({ usedBytes: GiB }))).toBe('blue');
    expect(usageColor(quota({ usedBytes: 8 * GiB }))).toBe('orange');
    expect(usageColor(quota({ usedBytes: 10 * GiB }))).toBe('red');
    expect(usageColor(quota({ usedBytes: GiB, exhausted: true }))).toBe('red');
    expect(usageColor(quota({ usedBytes: 10 * GiB, enabled: false }))).toBe('gray');
  });
});

describe('quotaViews', () => {
  it('separates the total from route quotas and names the routes', () => {
    const total = quota({});
    const views = quotaViews(
      [
        quota({ scope: 'route', kind: 'node', id: 'node-b' }),
        total,
        quota({ scope: 'route', kind: 'endpoint', id: 'ep-1' }),
        quota({ scope: 'route', kind: 'node', id: 'gone' }),
      ],
      [
        route('node', 'node-b', 'Beta node'),
        route('endpoint', 'ep-1', 'Alpha proxy'),
        route('endpoint', 'node-b', 'x'),
      ],
    );
    expect(views.total).toBe(total);
    expect(views.routes.map((view) => [view.key, view.name])).toEqual([
      ['endpoint:ep-1', 'Alpha proxy'],
      ['node:node-b', 'Beta node'],
      ['node:gone', null],
    ]);
  });

  it('has no total when the account has none (unlimited)', () => {
    expect(quotaViews([], [])).toEqual({ total: null, routes: [] });
  });
});
