import { nodeAccessSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { nodeAccessFormErrors, nodeAccessValuesFrom, toNodeAccessBody } from './node-access-form.js';

describe('node access form', () => {
  it('splits the entries by kind', () => {
    expect(
      nodeAccessValuesFrom({
        mode: 'ALLOW_LIST',
        entries: [
          { kind: 'endpoint', id: 'node-proxy' },
          { kind: 'node', id: 'node-agent' },
        ],
      }),
    ).toEqual({ mode: 'ALLOW_LIST', nodes: ['node-agent'], endpoints: ['node-proxy'] });
  });

  it('sends the lists with ALLOW_LIST, trimmed and each once', () => {
    const body = toNodeAccessBody({
      mode: 'ALLOW_LIST',
      nodes: [' node-a ', 'node-a', ''],
      endpoints: ['node-p'],
    });
    expect(body).toEqual({
      mode: 'ALLOW_LIST',
      entries: [
        { kind: 'node', id: 'node-a' },
        { kind: 'endpoint', id: 'node-p' },
      ],
    });
    expect(nodeAccessSchema.safeParse(body).success).toBe(true);
  });

  it('drops the lists for ALL and NONE (the server refuses entries there)', () => {
    for (const mode of ['ALL', 'NONE'] as const) {
      const body = toNodeAccessBody({ mode, nodes: ['node-a'], endpoints: ['node-p'] });
      expect(body).toEqual({ mode, entries: [] });
      expect(nodeAccessSchema.safeParse(body).success).toBe(true);
    }
  });

  it('puts entry problems on the list they came from', () => {
    const values = { mode: 'ALLOW_LIST' as const, nodes: ['node-a'], endpoints: ['x'.repeat(200)] };
    const result = nodeAccessSchema.safeParse(toNodeAccessBody(values));
    expect(result.success).toBe(false);
    const errors = Object.fromEntries(
      result.error!.issues.map((issue) => [issue.path.join('.'), issue.message]),
    );
    expect(Object.keys(nodeAccessFormErrors(errors, values))).toEqual(['endpoints']);
    expect(nodeAccessFormErrors({ 'entries.0.id': 'bad' }, values)).toEqual({ nodes: 'bad' });
    expect(nodeAccessFormErrors({ mode: 'bad' }, values)).toEqual({ mode: 'bad' });
  });
});
