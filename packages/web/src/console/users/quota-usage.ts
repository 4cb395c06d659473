import type { QuotaUsage } from '@svc/contracts';

/** Share of the limit used, 0–100 (more than the limit shows as a full bar). */
export function usagePercent(usedBytes: number, limitBytes: number): number {
  if (!Number.isFinite(usedBytes) || usedBytes <= 0) return 0;
  if (!Number.isFinite(limitBytes) || limitBytes <= 0) return 100;
  return Math.min(100, (usedBytes / limitBytes) * 100);
}

/** Grey when not enforced, red when used up, orange from 80 %, else blue. */
export function usageColor(
  quota: Pick<QuotaUsage, 'enabled' | 'exhausted' | 'usedBytes' | 'limitBytes'>,
): string {
  if (!quota.enabled) return 'gray';
  const percent = usagePercent(quota.usedBytes, quota.limitBytes);
  if (quota.exhausted || percent >= 100) return 'red';
  if (percent >= 80) return 'orange';
  return 'blue';
}

/** The total quota first, then the route quotas by kind and id. */
export function sortUsage(quotas: readonly QuotaUsage[]): QuotaUsage[] {
  const rank = (quota: QuotaUsage) => (quota.scope === 'total' ? 0 : quota.kind === 'node' ? 1 : 2);
  return [...quotas].sort((a, b) => rank(a) - rank(b) || (a.id ?? '').localeCompare(b.id ?? ''));
}
