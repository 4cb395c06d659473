// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { CacheDriveList, VfsDriveThreads } from '@svc/contracts';
import { registerMessages, setLanguage } from '../../i18n/i18n.js';
import { SessionProvider } from '../../session/session.js';
import { stubBrowserForMantine } from '../../testing/jsdom-mantine.js';
import { cacheMessages } from './cache-messages.js';
import { CacheThreadsCard } from './cache-threads-card.js';

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
const DRIVE_A = '11111111-1111-4111-8111-111111111111';
const DRIVE_B = '22222222-2222-4222-8222-222222222222';
const GONE = '33333333-3333-4333-8333-333333333333';
const json = (body: unknown, status = 200) =>
  Promise.resolve(
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
  );

function renderCard(stored: VfsDriveThreads[]) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MantineProvider>
        <Notifications />
        <SessionProvider app="console">
          <CacheThreadsCard nodeId="node-play-1" stored={stored} />
        </SessionProvider>
      </MantineProvider>
    </QueryClientProvider>,
  );
}

const input = (label: string) => screen.getByLabelText(label, { selector: 'input' });

describe('the multithread card', () => {
  it('offers the DRIVE_A and DRIVE_B mounts, keeps a stored drive no node lists, and saves driveThreads', async () => {
    const patches: unknown[] = [];
    const drives: CacheDriveList = {
      drives: [
        { driveId: DRIVE_A, name: 'films on A', provider: 'drive_a', storageNodeId: 'node-local-storage' },
        { driveId: DRIVE_B, name: 'films on B', provider: 'drive_b', storageNodeId: 'node-local-storage' },
      ],
      unreachableStorageNodes: ['node-storage-2'],
    };
    vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
      if (init.method === 'PATCH') {
        patches.push(JSON.parse(init.body as string));
        return json({});
      }
      expect(url).toContain('node-play-1/cache-config/drives');
      return json(drives);
    });
    renderCard([{ driveId: GONE, threads: 2, chunkSizeBytes: MiB }]);
    await waitFor(() => expect(screen.getByText('films on A')).toBeTruthy());
    expect(screen.getByText('DRIVE_A')).toBeTruthy();
    expect(screen.getByText('DRIVE_B')).toBeTruthy();
    expect(screen.getByText('Drive no storage node lists')).toBeTruthy();
    expect(screen.getByTestId('threads-unreachable').textContent).toContain('node-storage-2');
    // Without parameters the fields of a drive are off.
    expect(input('Threads for films on B').hasAttribute('disabled')).toBe(true);

    fireEvent.click(input('Multithread download for films on B'));
    fireEvent.change(input('Threads for films on B'), { target: { value: '8' } });
    fireEvent.change(input('Chunk size of films on B (MB)'), { target: { value: '2' } });
    fireEvent.click(screen.getByTestId('threads-save'));
    await waitFor(() => expect(patches).toHaveLength(1));
    expect(patches[0]).toEqual({
      vfs: {
        driveThreads: [
          { driveId: DRIVE_B, threads: 8, chunkSizeBytes: 2 * MiB },
          { driveId: GONE, threads: 2, chunkSizeBytes: MiB },
        ],
      },
    });
  });

  it('shows a refusal of the server at its field', async () => {
    vi.stubGlobal('fetch', (_url: string, init: RequestInit) => {
      if (init.method === 'PATCH') {
        const details = [{ path: '/vfs/driveThreads/0/threads', message: 'Too many threads' }];
        return json({ error: { code: 'VALIDATION_FAILED', message: 'bad', details } }, 400);
      }
      return json({
        drives: [{ driveId: DRIVE_A, name: 'films on A', provider: 'drive_a', storageNodeId: 'n' }],
        unreachableStorageNodes: [],
      });
    });
    renderCard([{ driveId: DRIVE_A, threads: 4, chunkSizeBytes: 4 * MiB }]);
    await waitFor(() => expect(screen.getByText('films on A')).toBeTruthy());
    fireEvent.change(input('Threads for films on A'), { target: { value: '6' } });
    fireEvent.click(screen.getByTestId('threads-save'));
    await waitFor(() => expect(screen.getByText('Too many threads')).toBeTruthy());
  });
});
