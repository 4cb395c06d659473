import { describe, expect, it } from 'vitest';
import { nodeIdSchema } from '@svc/contracts';
import { nodeIdHint } from './node-id.js';

describe('nodeIdHint', () => {
  it('says an empty id is generated', () => {
    expect(nodeIdHint('')).toEqual({ state: 'generated' });
    expect(nodeIdHint('   ')).toEqual({ state: 'generated' });
  });

  it('accepts exactly what the contracts accept', () => {
    for (const id of ['node-abc', 'node-A_b-9', `node-${'x'.repeat(60)}`, ' node-abc ']) {
      expect(nodeIdHint(id)).toEqual({ state: 'valid' });
      expect(nodeIdSchema.safeParse(id.trim()).success).toBe(true);
    }
  });

  it('names the first problem of an id the contracts refuse', () => {
    expect(nodeIdHint('abc')).toEqual({ state: 'invalid', problem: 'prefix' });
    expect(nodeIdHint('Node-abc')).toEqual({ state: 'invalid', problem: 'prefix' });
    expect(nodeIdHint('node-a b')).toEqual({ state: 'invalid', problem: 'characters' });
    expect(nodeIdHint('node-ab.c')).toEqual({ state: 'invalid', problem: 'characters' });
    expect(nodeIdHint('node-ab')).toEqual({ state: 'invalid', problem: 'tooShort' });
    expect(nodeIdHint(`node-${'x'.repeat(61)}`)).toEqual({ state: 'invalid', problem: 'tooLong' });
    for (const id of ['abc', 'node-a b', 'node-ab', `node-${'x'.repeat(61)}`]) {
      expect(nodeIdSchema.safeParse(id).success).toBe(false);
    }
  });
});
