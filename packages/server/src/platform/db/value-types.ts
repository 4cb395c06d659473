import pg from 'pg';
import type { CustomTypesConfig } from 'pg';
import { types as pgliteTypes, type ParserOptions } from '@electric-sql/pglite';

/*
 * pg and PGlite turn column text into JavaScript values differently. Both backends must return the same
 * values, so a few types are parsed here the same way on both:
 *   int8 (bigint, count(*))  -> number; BigInt only beyond Number.MAX_SAFE_INTEGER (PGlite's own rule)
 *   date                     -> 'YYYY-MM-DD' string (a Date would depend on the process time zone)
 *   interval                 -> PostgreSQL's text, e.g. '1 day 02:00:00'
 *   bytea                    -> Buffer
 * Arrays of these follow their element type. Everything else already matches (numeric stays a string,
 * timestamptz is a Date, json/jsonb are parsed, int2/int4/float are numbers, bool is boolean).
 */

const OID = {
  bytea: 17,
  int8: 20,
  date: 1082,
  interval: 1186,
  byteaArray: 1001,
  int8Array: 1016,
  dateArray: 1182,
  intervalArray: 1187,
} as const;

export function parseInt8(text: string): number | bigint {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : BigInt(text);
}

function identity(text: string): string {
  return text;
}

/** PostgreSQL's default bytea_output is hex: '\x0102'. */
function parseBytea(text: string): Buffer {
  if (text.startsWith('\\x')) return Buffer.from(text.slice(2), 'hex');
  // bytea_output = escape: octal escapes and doubled backslashes
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && text[i + 1] === '\\') {
      bytes.push(0x5c);
      i++;
    } else if (text[i] === '\\') {
      bytes.push(parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(text.charCodeAt(i));
    }
  }
  return Buffer.from(bytes);
}

const ELEMENT_PARSERS: Record<number, (text: string) => unknown> = {
  [OID.bytea]: parseBytea,
  [OID.int8]: parseInt8,
  [OID.date]: identity,
  [OID.interval]: identity,
};

const ARRAY_ELEMENTS: Record<number, number> = {
  [OID.byteaArray]: OID.bytea,
  [OID.int8Array]: OID.int8,
  [OID.dateArray]: OID.date,
  [OID.intervalArray]: OID.interval,
};

function arrayParserFor(arrayOid: number, elementOid: number): (text: string) => unknown {
  const element = ELEMENT_PARSERS[elementOid] ?? identity;
  return (text: string) => pgliteTypes.arrayParser(text, element, arrayOid) as unknown;
}

const OVERRIDES: Record<number, (text: string) => unknown> = { ...ELEMENT_PARSERS };
for (const [arrayOid, elementOid] of Object.entries(ARRAY_ELEMENTS)) {
  OVERRIDES[Number(arrayOid)] = arrayParserFor(Number(arrayOid), elementOid);
}

/** Type parsers for pg pools (per pool, so the process-wide pg.types stay untouched). */
export const PG_TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown => {
    if (format === 'binary') return pg.types.getTypeParser(oid, 'binary') as unknown;
    return OVERRIDES[oid] ?? (pg.types.getTypeParser(oid, 'text') as unknown);
  }) as CustomTypesConfig['getTypeParser'],
};

/** The same parsers for PGlite. */
export const PGLITE_PARSERS: ParserOptions = { ...OVERRIDES };
