import { describe, expect, it } from 'vitest';
import { settingsMessages } from './settings-messages.js';

type Tree = { [key: string]: string | Tree };

function keysOf(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'string' ? [`${prefix}${key}`] : keysOf(value, `${prefix}${key}.`),
  );
}

const sources = import.meta.glob<string>('./*.{ts,tsx}', { query: '?raw', import: 'default', eager: true });
const GROUPS =
  'systemName|logo|webPlayer|defaultQuota|defaultNodeAccess|playAgentPolicy|protocolInfo|mcp|retention|webhookToken|guard|scope';

describe('settings messages', () => {
  it('has the same keys in English and Chinese, none empty', () => {
    expect(keysOf(settingsMessages.zh).sort()).toEqual(keysOf(settingsMessages.en).sort());
    const texts = (tree: Tree): string[] =>
      Object.values(tree).flatMap((value) => (typeof value === 'string' ? [value] : texts(value)));
    for (const text of [...texts(settingsMessages.en), ...texts(settingsMessages.zh)])
      expect(text.trim()).not.toBe('');
  });

  it('has every literal key the cards use', () => {
    const known = new Set(keysOf(settingsMessages.en));
    const used = new Set<string>();
    const pattern = new RegExp(`'(?:settings:)?((?:${GROUPS})\\.[A-Za-z_.]+)'`, 'g');
    for (const [file, source] of Object.entries(sources)) {
      if (file.includes('messages') || file.includes('.test.')) continue;
      for (const match of source.matchAll(pattern)) used.add(match[1]!);
    }
    expect(used.size).toBeGreaterThan(40);
    expect([...used].filter((key) => !known.has(key))).toEqual([]);
  });

  it('names every scope of the spec and every node access advice', () => {
    expect(Object.keys(settingsMessages.en.scope).sort()).toEqual(
      ['atOnce', 'immediate', 'newUsers', 'nextCleanup', 'policyRefresh', 'withinSeconds'].sort(),
    );
    expect(Object.keys(settingsMessages.en.defaultNodeAccess.advice).sort()).toEqual([
      'NONE_FOR_NEW_USERS',
      'NO_PLAY_AGENT_NODE',
    ]);
  });
});
