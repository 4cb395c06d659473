// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { NodeView } from '@svc/contracts';
import { registerMessages, setLanguage } from '../../i18n/i18n.js';
import { SessionProvider } from '../../session/session.js';
import { stubBrowserForMantine } from '../../testing/jsdom-mantine.js';
import { cacheMessages } from './cache-messages.js';
import { CacheSyncCard } from './cache-sync-card.js';

beforeAll(() => {
  stubBrowserForMantine();
  registerMessages('cache', cacheMessages);
  setLanguage('en');
});
afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});

function node(nodeId: string, name: string, serviceType: NodeView['serviceType']): NodeView {
  return {
    nodeId,
    serviceType,
    name,
    scope: 'EXTERNAL',
    status: 'ONLINE',
    lastHeartbeatAt: null,
    disabled: false,
    expectedHost: '10.0.0.7',
    expectedPort: 19090,
    listenPort: serviceType === 'svc-play-agent' ? 19090 : null,
    note: '',
    externalAddress: null,
    tokens: { nodeToken: null, registryToken: null, endpointToken: null },
    probe: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

const json = (body: unknown) =>
  Promise.resolve(new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }));

function signIn(permissions: string[]) {
  localStorage.setItem(
    'svc.session.console',
    JSON.stringify({
      accessToken: 'svc_acc_test',
      adminToken: 'svc_adm_test',
      user: {
        id: '11111111-1111-4111-8111-111111111111',
        username: 'root',
        displayName: 'Root',
        role: 'admin',
        disabled: false,
        permissions,
        webPlayback: true,
        driveAPlayMode: 'redirect',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
      },
    }),
  );
}

function renderCard() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MantineProvider>
        <SessionProvider app="console">
          <CacheSyncCard nodeId="node-play-1" />
        </SessionProvider>
      </MantineProvider>
    </QueryClientProvider>,
  );
}

describe('the cache sync card', () => {
  it('offers the other play-agents only and shows each target’s outcome', async () => {
    signIn(['node', 'cache']);
    const bodies: unknown[] = [];
    vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
      if (init.method === 'POST') {
        bodies.push(JSON.parse(init.body as string));
        return json({
          results: [
            { nodeId: 'node-play-2', saved: true, applied: false },
            { nodeId: 'node-play-3', saved: false, applied: false, error: 'node node-play-3 is offline' },
          ],
        });
      }
      expect(url).toContain('/config/nodes');
      return json({
        edition: 'DISTRIBUTED',
        slotsUsed: { storage: 0, playAgent: 2 },
        nodes: [
          node('node-play-1', 'This player', 'svc-play-agent'),
          node('node-play-2', 'Second player', 'svc-play-agent'),
          node('node-play-3', 'Third player', 'svc-play-agent'),
          node('node-store-1', 'Storage', 'svc-control-storage'),
        ],
      });
    });
    renderCard();
    const picker = await screen.findByLabelText('Play-agent nodes', { selector: 'input:not([type=hidden])' });
    fireEvent.click(picker);
    const options = (await screen.findAllByRole('option', { hidden: true })).map(
      (option) => option.textContent,
    );
    expect(options).toEqual(['Second player (node-play-2)', 'Third player (node-play-3)']);
    fireEvent.click(screen.getByRole('option', { name: /node-play-2/, hidden: true }));
    fireEvent.click(screen.getByRole('option', { name: /node-play-3/, hidden: true }));
    fireEvent.click(screen.getByRole('button', { name: 'Copy' }));

    const results = await screen.findByTestId('sync-results');
    expect(bodies).toEqual([{ targetNodeIds: ['node-play-2', 'node-play-3'] }]);
    const rows = within(results).getAllByRole('row');
    expect(rows[0]!.textContent).toContain('Second player');
    expect(rows[0]!.textContent).toContain('Applied at its next pull');
    expect(rows[1]!.textContent).toContain('Not saved');
    expect(rows[1]!.textContent).toContain('node node-play-3 is offline');
  });

  it('says the node list needs the Nodes permission instead of asking for it', async () => {
    signIn(['cache']);
    const fetched: string[] = [];
    vi.stubGlobal('fetch', (url: string) => {
      fetched.push(url);
      return json({});
    });
    renderCard();
    await waitFor(() => expect(screen.getByText(/needs the Nodes permission/)).toBeTruthy());
    expect(fetched).toEqual([]);
  });
});
