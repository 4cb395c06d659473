import { quotasSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import {
  amountFrom,
  defaultQuota,
  emptyAmountPaths,
  limitBytes,
  newRouteQuota,
  quotaFormErrors,
  quotasValuesFrom,
  toQuotasBody,
} from './quota-form.js';

const issues = (body: unknown) => {
  const result = quotasSchema.safeParse(body);
  return result.success
    ? {}
    : Object.fromEntries(result.error.issues.map((issue) => [issue.path.join('.'), issue.message]));
};

describe('quota form ↔ API body', () => {
  const stored = {
    total: { enabled: true, amount: 50, unit: 'GB' as const, period: 'month' as const },
    routes: [
      {
        kind: 'endpoint' as const,
        id: 'node-proxy',
        enabled: false,
        amount: 500,
        unit: 'MB' as const,
        period: 'day' as const,
      },
    ],
  };

  it('round-trips stored quotas unchanged', () => {
    const values = quotasValuesFrom(stored);
    expect(values.limitTotal).toBe(true);
    expect(values.routes[0]).toMatchObject({
      key: 'route-0',
      kind: 'endpoint',
      id: 'node-proxy',
      enabled: false,
    });
    expect(toQuotasBody(values)).toEqual(stored);
  });

  it('sends total null when the total is not limited, keeping a default in the form', () => {
    const values = quotasValuesFrom({ total: null, routes: [] });
    expect(values.limitTotal).toBe(false);
    expect(values.total).toEqual(defaultQuota());
    expect(toQuotasBody(values)).toEqual({ total: null, routes: [] });
  });

  it('turns typed amounts into numbers and trims route ids', () => {
    const values = {
      limitTotal: true,
      total: { enabled: true, amount: '1.5', unit: 'GB' as const, period: 'week' as const },
      routes: [{ ...newRouteQuota('k'), id: ' node-a ', amount: '20' }],
    };
    const body = toQuotasBody(values);
    expect(body.total).toEqual({ enabled: true, amount: 1.5, unit: 'GB', period: 'week' });
    expect(body.routes[0]).toEqual({
      kind: 'node',
      id: 'node-a',
      enabled: true,
      amount: 20,
      unit: 'GB',
      period: 'month',
    });
    expect(issues(body)).toEqual({});
  });

  it('lets the schema refuse an empty or zero amount on the right field', () => {
    const body = toQuotasBody({
      limitTotal: true,
      total: { ...defaultQuota(), amount: '' },
      routes: [{ ...newRouteQuota('k', { kind: 'node', id: 'node-a' }), amount: 0 }],
    });
    expect(Object.keys(issues(body)).sort()).toEqual(['routes.0.amount', 'total.amount']);
  });

  it('shows a route listed twice on the row route field', () => {
    const row = newRouteQuota('a', { kind: 'node', id: 'node-a' });
    const errors = issues(
      toQuotasBody({ limitTotal: false, total: defaultQuota(), routes: [row, { ...row, key: 'b' }] }),
    );
    expect(errors).toHaveProperty('routes.1');
    expect(quotaFormErrors(errors)).toEqual({ 'routes.1.id': errors['routes.1'] });
    expect(quotaFormErrors({ 'routes.0.amount': 'x' })).toEqual({ 'routes.0.amount': 'x' });
  });

  it('finds the amounts left empty (an unlimited total is not checked)', () => {
    const routes = [newRouteQuota('a'), { ...newRouteQuota('b'), amount: ' ' }];
    expect(emptyAmountPaths({ limitTotal: true, total: { ...defaultQuota(), amount: '' }, routes })).toEqual([
      'total.amount',
      'routes.1.amount',
    ]);
    expect(
      emptyAmountPaths({ limitTotal: false, total: { ...defaultQuota(), amount: '' }, routes: [] }),
    ).toEqual([]);
  });

  it('reads amounts', () => {
    expect(amountFrom(3)).toBe(3);
    expect(amountFrom(' 2,5 ')).toBe(2.5);
    expect(amountFrom('')).toBeNaN();
    expect(amountFrom('abc')).toBeNaN();
  });

  it('computes limits in binary units', () => {
    expect(limitBytes(1, 'MB')).toBe(1_048_576);
    expect(limitBytes(2, 'GB')).toBe(2 * 1_073_741_824);
  });
});
