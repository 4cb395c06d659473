import type { Quota, QuotaPeriod, Quotas, QuotaUnit, RouteKind, RouteQuota } from '@svc/contracts';

/** An amount as Mantine's NumberInput holds it: a number, or '' (or a half-typed string) while editing. */
export type AmountValue = number | string;

export interface QuotaValues {
  /** Enforced; a quota switched off is kept but not applied. */
  enabled: boolean;
  amount: AmountValue;
  unit: QuotaUnit;
  period: QuotaPeriod;
}

export interface RouteQuotaValues extends QuotaValues {
  /** A stable key for the row (React list key); never sent. */
  key: string;
  kind: RouteKind;
  id: string;
}

export interface QuotasValues {
  /** Whether the user has a total quota at all (off: unlimited in total). */
  limitTotal: boolean;
  total: QuotaValues;
  routes: RouteQuotaValues[];
}

/** What a newly switched-on quota starts with. */
export function defaultQuota(): QuotaValues {
  return { enabled: true, amount: 100, unit: 'GB', period: 'month' };
}

export function newRouteQuota(
  key: string,
  route: { kind: RouteKind; id: string } = { kind: 'node', id: '' },
) {
  return { key, ...route, ...defaultQuota() } satisfies RouteQuotaValues;
}

function quotaValues(quota: Quota): QuotaValues {
  return { enabled: quota.enabled, amount: quota.amount, unit: quota.unit, period: quota.period };
}

/** The form from GET /api/auth/admin/users/:id (`quotas`); `makeKey` names each route row. */
export function quotasValuesFrom(
  quotas: { total: Quota | null; routes: readonly RouteQuota[] },
  makeKey: (index: number) => string = (index) => `route-${index}`,
): QuotasValues {
  return {
    limitTotal: quotas.total !== null,
    total: quotas.total ? quotaValues(quotas.total) : defaultQuota(),
    routes: quotas.routes.map((route, index) => ({
      key: makeKey(index),
      kind: route.kind,
      id: route.id,
      ...quotaValues(route),
    })),
  };
}

/** A typed amount as a number; anything that is not one becomes NaN, which the schema refuses. */
export function amountFrom(value: AmountValue): number {
  if (typeof value === 'number') return value;
  const text = value.trim().replace(',', '.');
  return text === '' ? Number.NaN : Number(text);
}

function quotaFrom(values: QuotaValues): Quota {
  return {
    enabled: values.enabled,
    amount: amountFrom(values.amount),
    unit: values.unit,
    period: values.period,
  };
}

/** PUT /api/auth/admin/users/:id/quotas: replaces every quota of the user (routes not listed are unlimited). */
export function toQuotasBody(values: QuotasValues): Quotas {
  return {
    total: values.limitTotal ? quotaFrom(values.total) : null,
    routes: values.routes.map((route) => ({ kind: route.kind, id: route.id.trim(), ...quotaFrom(route) })),
  };
}

/** A route listed twice is reported on the row (`routes.N`); the form shows it on the row's route field. */
export function quotaFormErrors(errors: Record<string, string>): Record<string, string> {
  const mapped: Record<string, string> = {};
  for (const [path, message] of Object.entries(errors)) {
    const field = /^routes\.\d+$/.test(path) ? `${path}.id` : path;
    mapped[field] ??= message;
  }
  return mapped;
}

const UNIT_BYTES: Record<QuotaUnit, number> = { MB: 2 ** 20, GB: 2 ** 30 };

/** The limit in bytes, as the server computes it (MB = 2^20, GB = 2^30 bytes). */
export function limitBytes(amount: number, unit: QuotaUnit): number {
  return Math.round(amount * UNIT_BYTES[unit]);
}

/** Paths of amount fields left empty (shown as "required" rather than the schema's "not a number"). */
export function emptyAmountPaths(values: QuotasValues): string[] {
  const empty = (amount: AmountValue) => typeof amount === 'string' && amount.trim() === '';
  return [
    ...(values.limitTotal && empty(values.total.amount) ? ['total.amount'] : []),
    ...values.routes.flatMap((route, index) => (empty(route.amount) ? [`routes.${index}.amount`] : [])),
  ];
}
