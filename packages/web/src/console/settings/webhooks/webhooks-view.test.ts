import { describe, expect, it } from 'vitest';
import {
  OUTBOUND_WEBHOOK_CONTENT_TYPES,
  OUTBOUND_WEBHOOK_DELIVERY_STATUSES,
  OUTBOUND_WEBHOOK_VARIABLES,
} from '@svc/contracts';
import { DELIVERY_STATUS_COLORS, hasUnfinishedDeliveries } from './delivery-status.js';
import { libraryOptions, subscriptionNames } from './library-options.js';
import { contentTypeKey, variableDescriptionKey, webhooksMessages } from './webhooks-messages.js';

type Tree = { [key: string]: string | Tree };

function keysOf(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'string' ? [`${prefix}${key}`] : keysOf(value, `${prefix}${key}.`),
  );
}

const sources = import.meta.glob<string>('./*.{ts,tsx}', { query: '?raw', import: 'default', eager: true });

describe('webhooks messages', () => {
  it('has the same keys in English and Chinese, none empty', () => {
    expect(keysOf(webhooksMessages.zh).sort()).toEqual(keysOf(webhooksMessages.en).sort());
    const texts = (tree: Tree): string[] =>
      Object.values(tree).flatMap((value) => (typeof value === 'string' ? [value] : texts(value)));
    expect(texts(webhooksMessages.zh).filter((text) => text.trim() === '')).toEqual([]);
  });

  it('has every literal key the section uses', () => {
    const known = new Set(keysOf(webhooksMessages.en));
    const used = new Set<string>();
    for (const [file, source] of Object.entries(sources)) {
      if (file.includes('messages') || file.endsWith('.test.ts')) continue;
      for (const match of source.matchAll(
        /'((?:section|list|test|form|variables|deliveries)\.[A-Za-z.]+)'/g,
      )) {
        used.add(match[1]!);
      }
    }
    expect(used.size).toBeGreaterThan(60);
    expect([...used].filter((key) => !known.has(key))).toEqual([]);
  });

  it('describes all 26 variables in both languages, and labels every content type and status', () => {
    expect(OUTBOUND_WEBHOOK_VARIABLES).toHaveLength(26);
    const en = new Set(keysOf(webhooksMessages.en));
    for (const variable of OUTBOUND_WEBHOOK_VARIABLES) {
      expect(en.has(variableDescriptionKey(variable.name)), variable.name).toBe(true);
      expect(en.has(`variables.groups.${variable.group}`), variable.group).toBe(true);
    }
    for (const type of OUTBOUND_WEBHOOK_CONTENT_TYPES) expect(en.has(contentTypeKey(type))).toBe(true);
    expect(new Set(OUTBOUND_WEBHOOK_CONTENT_TYPES.map(contentTypeKey)).size).toBe(3);
    for (const status of OUTBOUND_WEBHOOK_DELIVERY_STATUSES) {
      expect(en.has(`deliveries.statuses.${status}`)).toBe(true);
      expect(DELIVERY_STATUS_COLORS[status]).toBeTruthy();
    }
  });

  it('never writes {{…}} braces of template variables into a message (i18next would read them)', () => {
    const texts = (tree: Tree): string[] =>
      Object.values(tree).flatMap((value) => (typeof value === 'string' ? [value] : texts(value)));
    for (const text of [...texts(webhooksMessages.en), ...texts(webhooksMessages.zh)]) {
      for (const match of text.matchAll(/\{\{([^}]*)\}\}/g)) expect(match[1]).toMatch(/^[a-z]+$/i);
    }
  });
});

describe('delivery list', () => {
  it('refreshes only while a delivery is pending or retrying', () => {
    expect(hasUnfinishedDeliveries([])).toBe(false);
    expect(hasUnfinishedDeliveries([{ status: 'SUCCEEDED' }, { status: 'DEAD' }])).toBe(false);
    expect(hasUnfinishedDeliveries([{ status: 'SUCCEEDED' }, { status: 'PENDING' }])).toBe(true);
    expect(hasUnfinishedDeliveries([{ status: 'RETRYING' }])).toBe(true);
  });
});

describe('library subscription', () => {
  const libraries = [
    { id: 'a', name: 'Films' },
    { id: 'b', name: 'Series' },
  ];
  const deleted = (id: string) => `deleted ${id}`;

  it('offers every library plus chosen ids of deleted ones, which stay selected', () => {
    expect(libraryOptions(libraries, ['b', 'gone'], deleted)).toEqual([
      { value: 'a', label: 'Films' },
      { value: 'b', label: 'Series' },
      { value: 'gone', label: 'deleted gone' },
    ]);
  });

  it('names the subscription, empty meaning every library', () => {
    expect(subscriptionNames([], libraries, deleted)).toBeNull();
    expect(subscriptionNames(['b', 'gone'], libraries, deleted)).toEqual(['Series', 'deleted gone']);
  });
});
