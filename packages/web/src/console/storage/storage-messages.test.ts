import { describe, expect, it } from 'vitest';
import { storageMessages } from './storage-messages.js';

type Tree = { [key: string]: string | Tree };

function keysOf(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'string' ? [`${prefix}${key}`] : keysOf(value, `${prefix}${key}.`),
  );
}

const sources = import.meta.glob<string>('./*.tsx', { query: '?raw', import: 'default', eager: true });

describe('storage messages', () => {
  it('has the same keys in English and Chinese', () => {
    expect(keysOf(storageMessages.zh).sort()).toEqual(keysOf(storageMessages.en).sort());
  });

  it('has every literal key the page uses', () => {
    const known = new Set(keysOf(storageMessages.en));
    const used = new Set<string>();
    for (const source of Object.values(sources)) {
      for (const match of source.matchAll(
        /'((?:tabs|node|provider|drives|mounts|files|picker|transfer|transfers|uploads)\.[A-Za-z.]+)'/g,
      )) {
        used.add(match[1]!);
      }
    }
    expect(used.size).toBeGreaterThan(50);
    expect([...used].filter((key) => !known.has(key))).toEqual([]);
  });
});
