import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendMedia } from '../../src/services/play-agent/stream/media-sender.js';
import type { MediaSource } from '../../src/services/play-agent/stream/sources.js';

/**
 * A loopback HTTP server answering `GET|HEAD /<file>` (Range included) from a fresh source per request,
 * with the play-agent's own sender: what a player or the probe tool reading a play-agent URL sees.
 */
export interface MediaServer {
  url(file: string): string;
  /** Answers still being sent (their sources are still open). */
  readonly active: number;
  close(): Promise<void>;
}

export async function serveMedia(
  source: (file: string) => MediaSource | Promise<MediaSource>,
): Promise<MediaServer> {
  let active = 0;
  const server = http.createServer((req, res) => {
    const file = decodeURIComponent(new URL(req.url ?? '/', 'http://media').pathname.slice(1));
    active++;
    void Promise.resolve()
      .then(async () => sendMedia(req, res, await source(file), { name: file }))
      .catch(() => res.writeHead(500).end())
      .finally(() => active--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (file) => `http://127.0.0.1:${port}/${encodeURIComponent(file)}`,
    get active() {
      return active;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A player's ranged read (`bytes=<start>-<end>`), as players that ask for bounded ranges do. */
export async function rangedRead(url: string, range: { start: number; end: number }): Promise<Buffer> {
  const response = await fetch(url, { headers: { range: `bytes=${range.start}-${range.end}` } });
  if (response.status !== 206) throw new Error(`the player got ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}
