import type { PlaybackRoute, QuotaUsage } from '@svc/contracts';

/** Share of the limit used, 0–100 (more than the limit shows as full). */
export function usagePercent(usedBytes: number, limitBytes: number): number {
  if (!Number.isFinite(usedBytes) || usedBytes <= 0) return 0;
  if (!Number.isFinite(limitBytes) || limitBytes <= 0) return 100;
  return Math.min(100, (usedBytes / limitBytes) * 100);
}

/** The share as shown next to the bar: whole percent, but "<1" once anything is used (never a misleading 0). */
export function percentLabel(usedBytes: number, limitBytes: number): string {
  const percent = usagePercent(usedBytes, limitBytes);
  if (percent > 0 && percent < 1) return '<1';
  return String(Math.floor(percent));
}

/** Bar colour: grey when not enforced, red when used up, orange from 80 %, blue below. */
export function usageColor(
  quota: Pick<QuotaUsage, 'enabled' | 'exhausted' | 'usedBytes' | 'limitBytes'>,
): string {
  if (!quota.enabled) return 'gray';
  const percent = usagePercent(quota.usedBytes, quota.limitBytes);
  if (quota.exhausted || percent >= 100) return 'red';
  if (percent >= 80) return 'orange';
  return 'blue';
}

export interface RouteQuotaView {
  key: string;
  /** The route's name from the account's playback routes; null when it is not among them. */
  name: string | null;
  quota: QuotaUsage;
}

export interface QuotaViews {
  /** The total quota, or null: unlimited in total. */
  total: QuotaUsage | null;
  /** Quotas of single routes, by route name; routes without one are unlimited. */
  routes: RouteQuotaView[];
}

/** Splits the account's quotas into the total and the route quotas, naming routes from its playback routes. */
export function quotaViews(quotas: readonly QuotaUsage[], routes: readonly PlaybackRoute[]): QuotaViews {
  const names = new Map(routes.map((route) => [`${route.kind}:${route.id}`, route.name]));
  const routeViews = quotas
    .filter((quota) => quota.scope === 'route')
    .map((quota, index) => {
      const key = `${quota.kind ?? 'route'}:${quota.id ?? index}`;
      return { key, name: names.get(key) ?? null, quota };
    })
    .sort((a, b) => (a.name ?? a.key).localeCompare(b.name ?? b.key));
  return { total: quotas.find((quota) => quota.scope === 'total') ?? null, routes: routeViews };
}
