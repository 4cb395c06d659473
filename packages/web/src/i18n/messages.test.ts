import { describe, expect, it } from 'vitest';
import { commonMessages } from './common-messages.js';
import { errorMessages } from './error-messages.js';

const keysOf = (value: unknown, prefix = ''): string[] =>
  typeof value === 'object' && value !== null
    ? Object.entries(value).flatMap(([key, inner]) => keysOf(inner, prefix ? `${prefix}.${key}` : key))
    : [prefix];

describe('shell wording in both languages', () => {
  it('has the same keys in English and Chinese, none empty', () => {
    for (const messages of [commonMessages, errorMessages]) {
      expect(keysOf(messages.zh).sort()).toEqual(keysOf(messages.en).sort());
      for (const text of [...Object.values(messages.en), ...Object.values(messages.zh)])
        expect(text).not.toBe('');
    }
  });

  it('translates error codes written as the API writes them', () => {
    for (const code of Object.keys(errorMessages.en)) expect(code).toMatch(/^[A-Z][A-Z0-9_]+$/);
  });
});
