import { describe, expect, it } from 'vitest';
import { librariesMessages } from './libraries-messages.js';

type Tree = { [key: string]: string | Tree };

function keysOf(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'string' ? [`${prefix}${key}`] : keysOf(value, `${prefix}${key}.`),
  );
}

const sources = import.meta.glob<string>('./*.{ts,tsx}', { query: '?raw', import: 'default', eager: true });

describe('libraries messages', () => {
  it('has the same keys in English and Chinese', () => {
    expect(keysOf(librariesMessages.zh).sort()).toEqual(keysOf(librariesMessages.en).sort());
  });

  it('has every literal key the page uses', () => {
    const known = new Set(keysOf(librariesMessages.en));
    const used = new Set<string>();
    for (const [file, source] of Object.entries(sources)) {
      if (file.includes('messages')) continue;
      for (const match of source.matchAll(/'((?:list|form|sources|scan|items|item|detail)\.[A-Za-z.]+)'/g)) {
        used.add(match[1]!);
      }
    }
    expect(used.size).toBeGreaterThan(50);
    expect([...used].filter((key) => !known.has(key))).toEqual([]);
  });
});
