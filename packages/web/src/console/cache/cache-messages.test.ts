import { describe, expect, it } from 'vitest';
import { cacheMessages } from './cache-messages.js';

const entriesOf = (value: unknown, prefix = ''): [string, string][] =>
  typeof value === 'object' && value !== null
    ? Object.entries(value).flatMap(([key, inner]) => entriesOf(inner, prefix ? `${prefix}.${key}` : key))
    : [[prefix, String(value)]];

describe('the cache page wording', () => {
  it('has every text in English and Chinese, none empty, with the same placeholders', () => {
    const en = new Map(entriesOf(cacheMessages.en));
    const zh = new Map(entriesOf(cacheMessages.zh));
    expect([...zh.keys()].sort()).toEqual([...en.keys()].sort());
    const placeholders = (text: string) => (text.match(/\{\{\w+\}\}/g) ?? []).sort();
    for (const [key, english] of en) {
      const chinese = zh.get(key)!;
      expect(english.trim(), key).not.toBe('');
      expect(chinese.trim(), key).not.toBe('');
      expect(placeholders(chinese), key).toEqual(placeholders(english));
    }
    // Written in Chinese, not copied: the read-ahead warning and the flush confirmation above all.
    expect(zh.get('config.readAheadWarning')).toMatch(/[\u4e00-\u9fff]/);
    expect(zh.get('flush.confirm')).toMatch(/[\u4e00-\u9fff]/);
  });
});
