// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { VfsItem, VfsItemsResponse } from '@svc/contracts';
import { registerMessages, setLanguage } from '../../i18n/i18n.js';
import { SessionProvider } from '../../session/session.js';
import { stubBrowserForMantine } from '../../testing/jsdom-mantine.js';
import { CacheEntriesCard } from './cache-entries-card.js';
import { cacheMessages } from './cache-messages.js';

beforeAll(() => {
  stubBrowserForMantine();
  registerMessages('cache', cacheMessages);
  setLanguage('en');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const MiB = 1024 * 1024;

function entry(id: string, name: string, badge: VfsItem['badge'], episodeNumber: number | null): VfsItem {
  return {
    id,
    sourceId: `src-${id}`,
    name,
    totalBytes: 100 * MiB,
    cachedBytes: 12 * MiB,
    lastAccessAt: '2026-11-27T10:00:00.000Z',
    badge,
    ranges: [
      { start: 0, end: 8 * MiB - 1, part: 'head' },
      { start: 96 * MiB, end: 100 * MiB - 1, part: 'tail' },
    ],
    itemId: null,
    seriesName: episodeNumber === null ? null : 'Show',
    seasonNumber: episodeNumber === null ? null : 1,
    episodeNumber,
  };
}

const LIST: VfsItemsResponse = {
  total: 45,
  page: 1,
  pageSize: 20,
  rows: [
    {
      key: 'series:Show:1',
      name: 'Show S01',
      totalBytes: 200 * MiB,
      cachedBytes: 24 * MiB,
      lastAccessAt: '2026-11-27T10:00:00.000Z',
      entries: [entry('e1', 'Show S01E01', 'PLAYING', 1), entry('e2', 'Show S01E02', 'SMART_READY', 2)],
    },
    {
      key: 'e3',
      name: 'Film',
      totalBytes: 100 * MiB,
      cachedBytes: 12 * MiB,
      lastAccessAt: '2026-11-27T09:00:00.000Z',
      entries: [entry('e3', 'Film', 'CACHE_FAILED', null)],
    },
  ],
};

describe('the cache entry list', () => {
  it('asks the node with the chosen grouping, shows rows with badges and bars, deletes one entry', async () => {
    const gets: URLSearchParams[] = [];
    const posts: unknown[] = [];
    vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
      const answer = (body: unknown) =>
        Promise.resolve(
          new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }),
        );
      if (init.method === 'POST') {
        posts.push(JSON.parse(init.body as string));
        return answer({ removed: 1, inUse: 0 });
      }
      gets.push(new URL(url, 'http://console.test').searchParams);
      return answer(LIST);
    });
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <MantineProvider>
          <SessionProvider app="console">
            <CacheEntriesCard nodeId="node-play-1" />
          </SessionProvider>
        </MantineProvider>
      </QueryClientProvider>,
    );
    await screen.findByText('Show S01');
    expect(Object.fromEntries(gets[0]!)).toMatchObject({
      page: '1',
      pageSize: '20',
      groupByEpisodes: 'false',
      sort: 'lastAccess',
      order: 'desc',
    });
    expect(screen.getAllByTestId('cache-entry')).toHaveLength(3);
    expect(screen.getAllByTestId('range-bar')).toHaveLength(3);
    expect(screen.getByText('Playing')).toBeTruthy();
    expect(screen.getByText('Ready')).toBeTruthy();
    expect(screen.getByText('Failed')).toBeTruthy();
    // 45 rows at 20 a page: three pages.
    expect(screen.getByRole('button', { name: '3' })).toBeTruthy();

    fireEvent.click(screen.getByLabelText('Group episodes by season'));
    await waitFor(() => expect(gets.some((query) => query.get('groupByEpisodes') === 'true')).toBe(true));

    fireEvent.click(screen.getByRole('button', { name: 'Delete Film' }));
    fireEvent.click(await screen.findByTestId('confirm-button'));
    await waitFor(() => expect(posts).toEqual([{ entryId: 'e3' }]));
  });
});
