import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { DriveAPlayMode, Mount, PlayAgentPolicy } from '@svc/contracts';
import { PolicyRefresher } from '../../src/services/play-agent/policy-refresher.js';
import { ResponseCache } from '../../src/services/play-agent/proto-a/response-cache.js';
import { NEGATIVE_TTL_MS } from '../../src/services/play-agent/redirect/link-cache.js';
import {
  DriveARedirect,
  REDIRECT_FAILED_TEXT,
} from '../../src/services/play-agent/redirect/drive-a-redirect.js';
import { installBackends } from '../support/install-backends.js';
import { waitUntil } from '../support/wait.js';
import { startDriveAServer, type DriveAServer } from '../support/drive-servers/drive-a-server.js';
import { startStorage, type StorageHarness } from '../services/storage/storage-harness.js';

const FILM = Buffer.from('a film of a few bytes, as a drive serves it');
const TOKEN = 'alist-token-for-redirects';
const backend = installBackends()[0]!;
const MINUTE = 60_000;

/**
 * The redirect path of the play-agent against a real storage node with a DRIVE_A mount on a loopback
 * DRIVE_A server. A small app stands in for the stream route (which authenticates and checks the quota
 * before it calls the redirect: proto-a/stream.routes.ts); time is a fake clock shared with the drive.
 */
describe('DRIVE_A redirect playback', () => {
  let storage: StorageHarness;
  let drive: DriveAServer;
  let driveMount: Mount;
  let localMount: Mount;
  let app: FastifyInstance;
  let base: string;
  const clock = { now: Date.now() };
  const logs: string[] = [];
  let policy: PlayAgentPolicy = {
    protocol: 'proto_a',
    responseCache: false,
    metadataCacheTtlSeconds: 300,
    driveARedirect: true,
  };
  let refresher: PolicyRefresher;
  let allowedHosts: string[] = ['127.0.0.1'];
  let redirect: DriveARedirect;

  const newRedirect = (userAgent?: string) =>
    new DriveARedirect({
      switchedOn: () => refresher.current().driveARedirect,
      storageUrl: async () => storage.base,
      serviceToken: storage.install.context.serviceToken,
      get allowedHosts() {
        return allowedHosts;
      },
      userAgent,
      now: () => clock.now,
      logger: pino(
        { level: 'info' },
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            logs.push(chunk.toString());
            done();
          },
        }),
      ),
    });

  const play = (options: { mode?: DriveAPlayMode; mount?: Mount; item?: string; path?: string } = {}) =>
    request(
      `${base}/play?mode=${options.mode ?? 'redirect'}&mount=${(options.mount ?? driveMount).id}&item=${options.item ?? 'item-1'}&path=${encodeURIComponent(options.path ?? '/Movies/film one.mkv')}`,
    );

  beforeAll(async () => {
    drive = await startDriveAServer({ '/Movies/film one.mkv': FILM }, { token: TOKEN, now: () => clock.now });
    storage = await startStorage(backend.env);
    const created = await storage.api('POST', '/api/storage/mounts', {
      body: {
        name: 'drive',
        provider: 'drive_a',
        config: { url: drive.url, token: TOKEN, allowPrivateNetwork: true },
      },
    });
    expect(created.status, created.body.toString()).toBe(201);
    driveMount = created.json<Mount>();
    localMount = (await storage.localMount()).mount;
    refresher = new PolicyRefresher({
      config: { policy: async () => policy },
      media: { protocolServerInfo: async () => ({ serverName: 'Home', productName: 'Home Server' }) },
      cache: new ResponseCache(),
      supported: ['proto_a'],
      logger: pino({ level: 'silent' }),
    });
    await refresher.refresh();
    app = Fastify();
    app.get('/play', async (req, reply) => {
      const query = req.query as { mode: DriveAPlayMode; mount: string; item: string; path: string };
      const answered = await redirect.answer(reply, {
        userId: 'user-1',
        itemId: query.item,
        playMode: query.mode,
        file: { nodeId: 'node', mountId: query.mount, path: query.path },
      });
      if (answered === 'proxied') return reply.send('proxied');
      return reply;
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  }, 300_000);

  beforeEach(async () => {
    clock.now += 24 * 60 * MINUTE;
    allowedHosts = ['127.0.0.1'];
    policy = { ...policy, driveARedirect: true };
    await refresher.refresh();
    redirect = newRedirect();
    logs.length = 0;
  });

  afterAll(async () => {
    await app?.close();
    await storage?.stop();
    await drive?.stop();
    await backend.cleanup();
  });

  it('redirects when the switch is on, the user chose redirect and the source is DRIVE_A', async () => {
    const answer = await play();
    expect(answer.statusCode).toBe(302);
    const location = String(answer.headers.location);
    await answer.body.dump();
    // Percent-encoded, and the drive serves the bytes at it.
    expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/d\/Movies\/film%20one\.mkv\?expires=\d+&sign=/);
    const bytes = await request(location);
    expect(Buffer.from(await bytes.body.arrayBuffer()).equals(FILM)).toBe(true);
    // The log names who, what, where and how it went, never the link.
    const line = JSON.parse(logs.find((entry) => entry.includes('drive redirect'))!) as Record<
      string,
      unknown
    >;
    expect(line).toMatchObject({
      userId: 'user-1',
      itemId: 'item-1',
      provider: 'drive_a',
      host: '127.0.0.1',
      result: 'redirected',
    });
    expect(logs.join('')).not.toContain('sign=');
    // Nothing else: pino's own fields and the five facts.
    expect(
      Object.keys(line)
        .filter((key) => !['level', 'time', 'pid', 'hostname', 'msg'].includes(key))
        .sort(),
    ).toEqual(['host', 'itemId', 'provider', 'result', 'userId']);
  });

  it('answers the same fixed 502 when the drive has no such file, and asks again next time', async () => {
    const calls = drive.calls.get;
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const answer = await play({ item: 'missing', path: '/Movies/gone.mkv' });
      expect(answer.statusCode).toBe(502);
      expect(answer.headers.location).toBeUndefined();
      expect(await answer.body.json()).toEqual({
        error: { code: 'DRIVE_LINK_FAILED', message: REDIRECT_FAILED_TEXT },
      });
    }
    // Only a refused token is cached negatively.
    expect(drive.calls.get).toBe(calls + 2);
    const line = JSON.parse(logs.find((entry) => entry.includes('"result":"link-failed"'))!) as Record<
      string,
      unknown
    >;
    expect(line).toMatchObject({ userId: 'user-1', itemId: 'missing', provider: 'drive_a', host: null });
    expect(logs.join('')).not.toContain('gone.mkv');
  });

  it('stays proxied when any one condition is missing', async () => {
    const calls = drive.calls.get;
    const user = await play({ mode: 'proxy' });
    expect([user.statusCode, await user.body.text()]).toEqual([200, 'proxied']);
    const local = await play({ mount: localMount });
    expect([local.statusCode, await local.body.text()]).toEqual([200, 'proxied']);
    policy = { ...policy, driveARedirect: false };
    await refresher.refresh();
    const off = await play();
    expect([off.statusCode, await off.body.text()]).toEqual([200, 'proxied']);
    expect(drive.calls.get).toBe(calls);
  });

  it('turning the switch off returns to proxied playback at the next policy refresh; the user mode is kept', async () => {
    expect((await play()).statusCode).toBe(302);
    policy = { ...policy, driveARedirect: false };
    // Before the refresh the node still has the old policy.
    expect((await play()).statusCode).toBe(302);
    await refresher.refresh();
    expect((await play()).statusCode).toBe(200);
    policy = { ...policy, driveARedirect: true };
    await refresher.refresh();
    expect((await play()).statusCode).toBe(302);
  });

  it('caches the link until a minute before its expiry', async () => {
    drive.linkSeconds = 10 * 60;
    try {
      const calls = drive.calls.get;
      const first = await play({ item: 'ttl' });
      const second = await play({ item: 'ttl' });
      expect(second.headers.location).toBe(first.headers.location);
      expect(drive.calls.get).toBe(calls + 1);
      clock.now += 9 * MINUTE - 1_000;
      expect((await play({ item: 'ttl' })).headers.location).toBe(first.headers.location);
      clock.now += 1_000;
      const renewed = await play({ item: 'ttl' });
      expect(renewed.headers.location).not.toBe(first.headers.location);
      expect(drive.calls.get).toBe(calls + 2);
    } finally {
      drive.linkSeconds = 3600;
    }
  });

  it('answers a sanitized 502 without Location for a refused token, and asks again only after 5 minutes', async () => {
    drive.tokens.clear();
    try {
      const calls = drive.calls.get;
      const answer = await play({ item: 'refused' });
      expect(answer.statusCode).toBe(502);
      expect(answer.headers.location).toBeUndefined();
      expect(await answer.body.json()).toEqual({
        error: { code: 'DRIVE_LINK_FAILED', message: REDIRECT_FAILED_TEXT },
      });
      expect((await play({ item: 'refused' })).statusCode).toBe(502);
      expect(drive.calls.get).toBe(calls + 1);
      clock.now += NEGATIVE_TTL_MS;
      expect((await play({ item: 'refused' })).statusCode).toBe(502);
      expect(drive.calls.get).toBe(calls + 2);
      expect(logs.join('')).not.toContain(TOKEN);
    } finally {
      drive.tokens.add(TOKEN);
    }
  });

  it('refuses a link whose host is not allowed (502, no Location)', async () => {
    allowedHosts = ['drive.example'];
    const answer = await play({ item: 'host' });
    expect(answer.statusCode).toBe(502);
    expect(answer.headers.location).toBeUndefined();
    expect(await answer.body.json()).toEqual({
      error: { code: 'DRIVE_LINK_FAILED', message: REDIRECT_FAILED_TEXT },
    });
    expect(logs.join('')).toContain('"result":"host-refused"');
    // Without a list only https links to resolvable hosts pass: the drive's http link does not.
    allowedHosts = [];
    expect((await play({ item: 'host-empty' })).statusCode).toBe(502);
  });

  it('merges 100 concurrent plays of one item into one link request', async () => {
    const calls = drive.calls.get;
    let release!: () => void;
    drive.hold = new Promise<void>((resolve) => (release = resolve));
    try {
      // Count the plays that reached the link cache: the drive is released only when all 100 wait there.
      let entered = 0;
      const get = redirect.links.get.bind(redirect.links);
      redirect.links.get = (key, fetch) => {
        entered += 1;
        return get(key, fetch);
      };
      const plays = Array.from({ length: 100 }, () => play({ item: 'crowd' }));
      await waitUntil(
        () => entered === 100 && drive.calls.get > calls,
        'all plays wait for the link',
        60_000,
      );
      release();
      const answers = await Promise.all(plays);
      expect(answers.every((answer) => answer.statusCode === 302)).toBe(true);
      expect(new Set(answers.map((answer) => answer.headers.location)).size).toBe(1);
      expect(drive.calls.get).toBe(calls + 1);
    } finally {
      drive.hold = null;
    }
  });

  it('asks for links with the fixed User-Agent of the environment first', async () => {
    redirect = newRedirect('FixedAgent/3');
    expect((await play({ item: 'agent' })).statusCode).toBe(302);
    expect(drive.lastUserAgent).toBe('FixedAgent/3');
  });
});
