// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { DEFAULT_NODE_CACHE_CONFIG } from '@svc/contracts';
import { registerMessages, setLanguage } from '../../i18n/i18n.js';
import { SessionProvider } from '../../session/session.js';
import { stubBrowserForMantine } from '../../testing/jsdom-mantine.js';
import { CacheConfigCard } from './cache-config-card.js';
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

function renderCard() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MantineProvider>
        <SessionProvider app="console">
          <CacheConfigCard nodeId="node-play-1" config={DEFAULT_NODE_CACHE_CONFIG} />
        </SessionProvider>
      </MantineProvider>
    </QueryClientProvider>,
  );
}

const input = (label: RegExp) => screen.getByLabelText(label, { selector: 'input' });

describe('the cache configuration card', () => {
  it('shows the preset as custom once an expert value differs, and the preset again when set back', () => {
    renderCard();
    const preset = screen.getByTestId('cache-preset');
    expect(preset).toHaveProperty('value', 'Balanced');
    fireEvent.change(input(/Minimum tail/), { target: { value: '5' } });
    expect(preset).toHaveProperty('value', 'Custom');
    fireEvent.change(input(/Minimum tail/), { target: { value: '4' } });
    expect(preset).toHaveProperty('value', 'Balanced');
  });

  it('warns about a read-ahead buffer above the limit of an unknown disk only', () => {
    renderCard();
    expect(screen.queryByTestId('read-ahead-warning')).toBeNull();
    fireEvent.change(input(/Read-ahead buffer/), { target: { value: '384' } });
    expect(screen.queryByTestId('read-ahead-warning')).toBeNull();
    fireEvent.change(input(/Read-ahead buffer/), { target: { value: '385' } });
    expect(screen.getByTestId('read-ahead-warning').textContent).toContain('384 MB');
  });

  it('sends the form as one PATCH and shows the server refusal at its field', async () => {
    const sent: { method: string; body: unknown }[] = [];
    vi.stubGlobal('fetch', (_url: string, init: RequestInit) => {
      sent.push({ method: String(init.method), body: JSON.parse(init.body as string) });
      const details = [{ path: '/vfs/capacityBytes', message: 'Too large for this disk' }];
      return Promise.resolve(
        new Response(JSON.stringify({ error: { code: 'VALIDATION_FAILED', message: 'bad', details } }), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        }),
      );
    });
    renderCard();
    fireEvent.change(input(/Capacity \(GB\)/), { target: { value: '30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getByText('Too large for this disk')).toBeTruthy());
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe('PATCH');
    expect(sent[0]!.body).toMatchObject({ vfs: { capacityBytes: 30 * 1024 ** 3, preset: 'BALANCED' } });
    expect(input(/Capacity \(GB\)/).getAttribute('aria-invalid')).toBe('true');
  });
});
