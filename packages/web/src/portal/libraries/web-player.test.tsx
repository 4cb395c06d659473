// @vitest-environment jsdom
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { PortalFile } from '@svc/contracts';
import { registerMessages } from '../../i18n/i18n.js';
import { SessionProvider } from '../../session/session.js';
import { stubBrowserForMantine } from '../../testing/jsdom-mantine.js';
import { librariesMessages } from './libraries-messages.js';
import { WebPlayer } from './web-player.js';

const ITEM_ID = '0123456789abcdef0123456789abcdef';

const file: PortalFile = {
  container: 'mp4',
  format: 'mov,mp4,m4a,3gp,3g2,mj2',
  size: 1000,
  durationSeconds: 6,
  bitrate: null,
  streams: [
    { index: 0, type: 'video', codec: 'h264', width: 160, height: 120 },
    { index: 1, type: 'audio', codec: 'aac', language: 'eng', channels: 1, default: true },
  ],
  subtitles: [],
};

/** A play-agent stand-in that answers every request with one status and error body. */
function answering(status: number, code: string): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    response.writeHead(status, {
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
    });
    response.end(JSON.stringify({ error: { code, message: code.toLowerCase() } }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

/** A loopback address nothing listens on (a server bound, then closed). */
async function unreachableAddress(): Promise<string> {
  const { server, url } = await answering(200, 'OK');
  await new Promise((resolve) => server.close(resolve));
  return url;
}

function renderPlayer(baseUrl: string) {
  localStorage.setItem(
    'svc.session.portal',
    JSON.stringify({
      accessToken: 'svc_acc_test',
      user: {
        id: '11111111-1111-4111-8111-111111111111',
        username: 'viewer',
        displayName: 'Viewer',
        role: 'user',
        disabled: false,
        permissions: [],
        webPlayback: true,
        driveAPlayMode: 'redirect',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
      },
    }),
  );
  const queryClient = new QueryClient();
  return render(
    <QueryClientProvider client={queryClient}>
      <MantineProvider>
        <SessionProvider app="portal">
          <WebPlayer
            baseUrl={baseUrl}
            playbackItemId={ITEM_ID}
            title="Heat"
            file={file}
            onClose={() => undefined}
          />
        </SessionProvider>
      </MantineProvider>
    </QueryClientProvider>,
  );
}

/** What the browser does when the stream fails: a MediaError on the element, then an `error` event. */
function failVideo(code: number) {
  const video = screen.getByTestId('web-player');
  Object.defineProperty(video, 'error', { configurable: true, value: { code, message: '' } });
  fireEvent.error(video);
}

beforeAll(() => {
  stubBrowserForMantine();
  registerMessages('myLibraries', librariesMessages);
});
afterEach(cleanup);

describe('the web player error message', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('says the playback address cannot be reached when nothing answers there (not format, quota or access)', async () => {
    renderPlayer(await unreachableAddress());
    // Chromium reports a refused connection of a <video> as MEDIA_ERR_SRC_NOT_SUPPORTED.
    failVideo(4);
    const alert = await screen.findByTestId('web-player-error');
    await waitFor(() => expect(alert.getAttribute('data-cause')).toBe('unreachable'));
    expect(alert.textContent).toMatch(/cannot reach the playback address/i);
    expect(alert.textContent).not.toMatch(/quota|format/i);
  });

  it('says the quota is used up when the play-agent answers QUOTA_EXHAUSTED', async () => {
    const { server, url } = await answering(403, 'QUOTA_EXHAUSTED');
    servers.push(server);
    renderPlayer(url);
    failVideo(4);
    const alert = await screen.findByTestId('web-player-error');
    await waitFor(() => expect(alert.getAttribute('data-cause')).toBe('quota'));
    expect(alert.textContent).toMatch(/quota/i);
  });

  it('blames the format only when the play-agent does send the file', async () => {
    const { server, url } = await answering(206, 'OK');
    servers.push(server);
    renderPlayer(url);
    failVideo(4);
    const alert = await screen.findByTestId('web-player-error');
    await waitFor(() => expect(alert.getAttribute('data-cause')).toBe('format'));
    expect(alert.textContent).toMatch(/cannot decode|cannot play/i);
  });
});
