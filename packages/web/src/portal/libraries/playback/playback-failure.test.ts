import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { classifyPlaybackFailure, MEDIA_ERR, probeStream, type StreamProbe } from './playback-failure.js';

const answer = (status: number, code: string | null = null): StreamProbe => ({
  reachable: true,
  status,
  code,
  message: null,
});

describe('classifyPlaybackFailure', () => {
  it('blames the address when nothing answered, whatever the media error says', () => {
    for (const code of [MEDIA_ERR.NETWORK, MEDIA_ERR.SRC_NOT_SUPPORTED, MEDIA_ERR.DECODE, null]) {
      expect(classifyPlaybackFailure(code, { reachable: false })).toBe('unreachable');
    }
  });

  it('tells the play-agent refusals apart by status and error code', () => {
    const err = MEDIA_ERR.SRC_NOT_SUPPORTED;
    expect(classifyPlaybackFailure(err, answer(401, 'UNAUTHORIZED'))).toBe('signed-out');
    expect(classifyPlaybackFailure(err, answer(401, 'ACCOUNT_DISABLED'))).toBe('refused');
    expect(classifyPlaybackFailure(err, answer(403, 'QUOTA_EXHAUSTED'))).toBe('quota');
    expect(classifyPlaybackFailure(err, answer(403, 'WEB_PLAYBACK_DISABLED'))).toBe('web-playback-off');
    expect(classifyPlaybackFailure(err, answer(403, 'NODE_NOT_ALLOWED'))).toBe('refused');
    expect(classifyPlaybackFailure(err, answer(403, 'ENDPOINT_NOT_ALLOWED'))).toBe('refused');
    expect(classifyPlaybackFailure(err, answer(404, 'NOT_FOUND'))).toBe('not-found');
    expect(classifyPlaybackFailure(err, answer(503, 'UPSTREAM_UNAVAILABLE'))).toBe('unavailable');
    expect(classifyPlaybackFailure(err, answer(502, null))).toBe('unavailable');
  });

  it('blames the format only when the file is being sent', () => {
    expect(classifyPlaybackFailure(MEDIA_ERR.SRC_NOT_SUPPORTED, answer(206))).toBe('format');
    expect(classifyPlaybackFailure(MEDIA_ERR.DECODE, answer(200))).toBe('format');
    expect(classifyPlaybackFailure(MEDIA_ERR.NETWORK, answer(206))).toBe('interrupted');
  });
});

describe('probeStream', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((server) => new Promise((done) => server.close(done)))));

  const serve = (handler: Parameters<typeof createServer>[1]) =>
    new Promise<string>((resolve) => {
      const server = createServer(handler);
      servers.push(server);
      server.listen(0, '127.0.0.1', () =>
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/Videos/x/stream`),
      );
    });

  it('asks for one byte and reads the error body of a refusal', async () => {
    const ranges: (string | undefined)[] = [];
    const url = await serve((request, response) => {
      ranges.push(request.headers.range);
      response.writeHead(403, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'QUOTA_EXHAUSTED', message: 'used up' } }));
    });
    expect(await probeStream(url)).toEqual({
      reachable: true,
      status: 403,
      code: 'QUOTA_EXHAUSTED',
      message: 'used up',
    });
    expect(ranges).toEqual(['bytes=0-0']);
  });

  it('reports a sending address as reachable without reading the file', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(206, { 'content-range': 'bytes 0-0/100000' });
      response.end('x');
    });
    expect(await probeStream(url)).toEqual({ reachable: true, status: 206, code: null, message: null });
  });

  it('reports a refused connection and a silent server as unreachable', async () => {
    const closed = await serve(() => undefined);
    const server = servers.pop()!;
    await new Promise((done) => server.close(done));
    expect(await probeStream(closed)).toEqual({ reachable: false });
    const silent = await serve(() => undefined);
    expect(await probeStream(silent, fetch, 200)).toEqual({ reachable: false });
  });
});
