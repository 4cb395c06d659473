import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientErrorCodeSchema, errorCodeSchema } from '../src/error-codes.js';

const docs = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
/** Codes that open a row of a table with their status: "| `CODE` | 409 | when |". */
const documented = new Set(
  [...docs.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| [^|]+ \| [^|]+ \|$/gm)].map((match) => match[1]),
);

describe('error codes', () => {
  it('each have a row with their status in docs/errors.md', () => {
    const codes = [...errorCodeSchema.options, ...clientErrorCodeSchema.options];
    expect(codes.filter((code) => !documented.has(code))).toEqual([]);
  });

  it('are kept in alphabetical order, so additions from several branches merge cleanly', () => {
    expect([...errorCodeSchema.options]).toEqual([...errorCodeSchema.options].sort());
  });

  it('keep the web app’s own codes apart from the server’s', () => {
    for (const code of clientErrorCodeSchema.options) expect(errorCodeSchema.options).not.toContain(code);
  });
});
