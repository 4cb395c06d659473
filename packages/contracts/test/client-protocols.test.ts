import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as contracts from '@svc/contracts';
import * as protocols from '@svc/contracts/client-protocols';

describe('client protocols subpath', () => {
  it('holds the same lists the contracts export and validate', () => {
    expect(protocols.CLIENT_PROTOCOLS).toEqual(contracts.CLIENT_PROTOCOLS);
    expect(protocols.IMPLEMENTED_CLIENT_PROTOCOLS).toEqual(contracts.IMPLEMENTED_CLIENT_PROTOCOLS);
    expect(contracts.clientProtocolSchema.options).toEqual([...protocols.CLIENT_PROTOCOLS]);
  });

  it('imports nothing, so the supervisor loading it builds no schemas', () => {
    const source = readFileSync(new URL('../src/client-protocols.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^\s*import\s/m);
  });
});
