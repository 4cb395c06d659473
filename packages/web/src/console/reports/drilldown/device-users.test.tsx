// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, render, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { reportDeviceUsersQuerySchema } from '@svc/contracts';
import { registerMessages } from '../../../i18n/i18n.js';
import { SessionProvider } from '../../../session/session.js';
import { stubBrowserForMantine } from '../../../testing/jsdom-mantine.js';
import { reportsMessages } from '../reports-messages.js';
import { DeviceUsers, type DeviceTarget } from './device-users.js';

beforeAll(() => {
  stubBrowserForMantine();
  registerMessages('reports', reportsMessages);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The query the server's route reads from the one request the drill-down sends for `target`. */
async function querySentFor(target: DeviceTarget): Promise<Record<string, unknown>> {
  const requested: string[] = [];
  vi.stubGlobal('fetch', (url: string) => {
    requested.push(url);
    return Promise.resolve(
      new Response(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'x' } }), { status: 404 }),
    );
  });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MantineProvider>
        <SessionProvider app="console">
          <DeviceUsers target={target} reportWindow={{ preset: 'last7d' }} onOpen={() => undefined} />
        </SessionProvider>
      </MantineProvider>
    </QueryClientProvider>,
  );
  await waitFor(() => expect(requested).toHaveLength(1));
  const search = new URL(requested[0]!, 'http://console.test').searchParams;
  return reportDeviceUsersQuerySchema.parse(Object.fromEntries(search));
}

describe('the device users drill-down', () => {
  it('sends a client and a device without a name as empty values, not as missing ones', async () => {
    expect(await querySentFor({ client: '', deviceName: '' })).toMatchObject({
      preset: 'last7d',
      client: '',
      deviceName: '',
      page: 1,
    });
  });

  it('sends a platform with the window and the page', async () => {
    const query = await querySentFor({ platform: 'android' });
    expect(query).toMatchObject({ preset: 'last7d', platform: 'android', page: 1 });
    expect(query).not.toHaveProperty('client');
  });
});
