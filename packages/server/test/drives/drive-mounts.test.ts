import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { BrowseResponse, DirectLinkResponse, Mount, WalkLine } from '@svc/contracts';
import { DEFAULT_DRIVE_USER_AGENT, EXPECTED_SIZE_HEADER, MASKED_SECRET } from '@svc/contracts';
import type { MountsRepository } from '../../src/services/storage/mounts/mounts.repository.js';
import { installBackends } from '../support/install-backends.js';
import { startDriveAServer, type DriveAServer } from '../support/drive-servers/drive-a-server.js';
import { startDriveBServer, type DriveBServer } from '../support/drive-servers/drive-b-server.js';
import { q, serviceHeaders, startStorage, type StorageHarness } from '../services/storage/storage-harness.js';

const FILM = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
const TREE = {
  '/Media/Movies/Film (2020)/film.mkv': FILM,
  '/Media/Movies/Film (2020)/film.srt': Buffer.from('1\n00:00:00,000 --> 00:00:01,000\nHi\n'),
  '/Media/Movies/Other (2021)/other.mkv': Buffer.from('other'),
  '/Media/Movies/Third (2022)/third.mkv': Buffer.from('third'),
  '/Media/readme.txt': Buffer.from('hello'),
  '/Elsewhere/secret.txt': Buffer.from('not under the root'),
};
const TOKEN_A = 'alist-token-0123456789';
const TOKEN_B = 'drive-b-access-token-9876';

const backend = installBackends()[0]!;

describe('drive mounts (DRIVE_A, DRIVE_B) on the storage node', () => {
  let storage: StorageHarness;
  let driveA: DriveAServer;
  let driveB: DriveBServer;
  let mountA: Mount;
  let mountB: Mount;

  const internal = async (route: string, headers: Record<string, string> = {}) => {
    const answer = await request(`${storage.base}${route}`, {
      headers: { ...serviceHeaders(storage.install, null), ...headers },
    });
    return {
      status: answer.statusCode,
      headers: answer.headers,
      body: Buffer.from(await answer.body.arrayBuffer()),
    };
  };

  beforeAll(async () => {
    driveA = await startDriveAServer(TREE, { token: TOKEN_A });
    driveB = await startDriveBServer(TREE, { token: TOKEN_B });
    storage = await startStorage(backend.env);
    const a = await storage.api('POST', '/api/storage/mounts', {
      body: {
        name: 'drive-a',
        provider: 'drive_a',
        config: {
          url: driveA.url,
          token: TOKEN_A,
          root: '/Media',
          userAgent: 'AccountAgent/1',
          allowPrivateNetwork: true,
        },
      },
    });
    expect(a.status, a.body.toString()).toBe(201);
    mountA = a.json<Mount>();
    const b = await storage.api('POST', '/api/storage/mounts', {
      body: {
        name: 'drive-b',
        provider: 'drive_b',
        config: {
          url: driveB.url,
          cdnHost: driveB.cdnHost,
          cdnScheme: 'http',
          accessToken: TOKEN_B,
          allowPrivateNetwork: true,
        },
      },
    });
    expect(b.status, b.body.toString()).toBe(201);
    mountB = b.json<Mount>();
  }, 120_000);

  afterAll(async () => {
    await storage?.stop();
    await driveA?.stop();
    await driveB?.stop();
    await backend.cleanup();
  });

  it('masks the credentials in every answer and seals them in the database', async () => {
    expect(mountA.config.token).toBe(MASKED_SECRET);
    expect(mountB.config.accessToken).toBe(MASKED_SECRET);
    const list = await storage.api('GET', '/api/storage/mounts');
    expect(list.body.toString()).not.toContain(TOKEN_A);
    expect(list.body.toString()).not.toContain(TOKEN_B);
    const repository = (storage.component.services.mounts as unknown as { repository: MountsRepository })
      .repository;
    const rowA = await repository.get(mountA.id);
    const rowB = await repository.get(mountB.id);
    expect(String(rowA?.config.token)).toMatch(/^enc:v1:/);
    expect(String(rowB?.config.accessToken)).toMatch(/^enc:v1:/);
    expect(JSON.stringify([rowA, rowB])).not.toMatch(new RegExp(`${TOKEN_A}|${TOKEN_B}`));
  });

  it('keeps a masked secret on update and still reaches the drive with it', async () => {
    const patched = await storage.api('PATCH', `/api/storage/mounts/${mountA.id}`, {
      body: { config: { ...mountA.config, token: MASKED_SECRET } },
    });
    expect(patched.status, patched.body.toString()).toBe(200);
    const check = await storage.api('POST', `/api/storage/mounts/${mountA.id}/check`);
    expect(check.json()).toEqual({ ok: true });
  });

  it.each([
    ['DRIVE_A', () => mountA],
    ['DRIVE_B', () => mountB],
  ])('%s: browses page by page, stats and reads ranges', async (_label, mount) => {
    const id = mount().id;
    const root = mount() === mountA ? '' : 'Media/';
    const browse = await storage.api('GET', `/api/storage/mounts/${id}/browse?path=${q(`${root}Movies`)}`);
    expect(browse.status, browse.body.toString()).toBe(200);
    // Three folders arrive over two pages of the drive's listing.
    expect(browse.json<BrowseResponse>().entries.map((entry) => entry.name)).toEqual([
      'Film (2020)',
      'Other (2021)',
      'Third (2022)',
    ]);
    const path = `${root}Movies/Film (2020)/film.mkv`;
    const head = await internal(`/api/storage/internal/mounts/${id}/locate?path=${q(path)}`);
    expect(head.status, head.body.toString()).toBe(200);
    expect(JSON.parse(head.body.toString())).toMatchObject({ localPath: null, size: FILM.length });
    const ranged = await internal(`/api/storage/internal/mounts/${id}/file?path=${q(path)}`, {
      range: 'bytes=100-1099',
    });
    expect(ranged.status).toBe(206);
    expect(ranged.body.equals(FILM.subarray(100, 1100))).toBe(true);
    const missing = await internal(`/api/storage/internal/mounts/${id}/file?path=${q(`${root}nothing.mkv`)}`);
    expect(missing.status).toBe(404);
  });

  it('DRIVE_A: a read asks the drive once for its link and the size (twice with a stat first); another size is 412', async () => {
    const route = `/api/storage/internal/mounts/${mountA.id}/file?path=${q('Movies/Film (2020)/film.mkv')}`;
    const before = driveA.calls.get;
    const known = await internal(route, { range: 'bytes=5-14', [EXPECTED_SIZE_HEADER]: String(FILM.length) });
    expect(known.status, known.body.toString()).toBe(206);
    expect(known.body.equals(FILM.subarray(5, 15))).toBe(true);
    expect(known.headers['content-range']).toBe(`bytes 5-14/${FILM.length}`);
    expect(driveA.calls.get - before).toBe(1);
    const plain = await internal(route, { range: 'bytes=5-14' });
    expect(plain.status).toBe(206);
    expect(plain.headers.etag).toBe(known.headers.etag);
    expect(driveA.calls.get - before).toBe(3);
    const changed = await internal(route, { range: 'bytes=5-14', [EXPECTED_SIZE_HEADER]: '12' });
    expect(changed.status).toBe(412);
    expect(JSON.parse(changed.body.toString())).toMatchObject({ error: { code: 'FILE_CHANGED' } });
  });

  it('DRIVE_B: a read naming the size is answered from the link, another size is 412', async () => {
    const route = `/api/storage/internal/mounts/${mountB.id}/file?path=${q('Media/Movies/Film (2020)/film.mkv')}`;
    const known = await internal(route, { range: 'bytes=0-9', [EXPECTED_SIZE_HEADER]: String(FILM.length) });
    expect(known.status, known.body.toString()).toBe(206);
    expect(known.body.equals(FILM.subarray(0, 10))).toBe(true);
    const changed = await internal(route, { range: 'bytes=0-9', [EXPECTED_SIZE_HEADER]: '12' });
    expect(changed.status).toBe(412);
  });

  it('DRIVE_A: a link that expired is refused by the drive, asked for once more, and the range still read', async () => {
    const path = q('Movies/Film (2020)/film.mkv');
    const gets = driveA.calls.get;
    driveA.expiredLinks = 1;
    const ranged = await internal(`/api/storage/internal/mounts/${mountA.id}/file?path=${path}`, {
      range: 'bytes=10-19',
    });
    expect(ranged.status).toBe(206);
    expect(ranged.body.equals(FILM.subarray(10, 20))).toBe(true);
    expect(driveA.expiredLinks).toBe(0);
    // Two expired links in a row: asked once more, never in a loop; the read fails.
    driveA.expiredLinks = 2;
    const failed = await internal(`/api/storage/internal/mounts/${mountA.id}/file?path=${path}`, {
      range: 'bytes=10-19',
    });
    expect(failed.status).toBe(502);
    expect(driveA.expiredLinks).toBe(0);
    // Each refused link was followed by a request for a new one.
    expect(driveA.calls.get - gets).toBeGreaterThanOrEqual(4);
    driveA.expiredLinks = 0;
  });

  it('walks a drive mount as the library scanner does, never outside its root', async () => {
    const walk = await internal(`/api/storage/internal/mounts/${mountA.id}/walk?path=Movies`);
    expect(walk.status).toBe(200);
    const lines = walk.body
      .toString()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as WalkLine);
    expect(
      lines
        .filter((line) => line.type === 'file')
        .map((line) => line.path)
        .sort(),
    ).toEqual([
      'Movies/Film (2020)/film.mkv',
      'Movies/Film (2020)/film.srt',
      'Movies/Other (2021)/other.mkv',
      'Movies/Third (2022)/third.mkv',
    ]);
    expect(walk.body.toString()).not.toContain('secret.txt');
  });

  it('DRIVE_A: hands out the signed raw_url with its expiry, asked with the account User-Agent', async () => {
    const before = Date.now();
    const answer = await internal(
      `/api/storage/internal/mounts/${mountA.id}/link?path=${q('Movies/Film (2020)/film.mkv')}`,
    );
    expect(answer.status, answer.body.toString()).toBe(200);
    const link = JSON.parse(answer.body.toString()) as DirectLinkResponse;
    expect(link).toMatchObject({
      provider: 'drive_a',
      accountId: mountA.id,
      headers: { 'user-agent': 'AccountAgent/1' },
    });
    expect(driveA.lastUserAgent).toBe('AccountAgent/1');
    expect(Date.parse(link.expiresAt!)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3_599_000);
    const bytes = await request(link.url);
    expect(Buffer.from(await bytes.body.arrayBuffer()).equals(FILM)).toBe(true);

    // The play-agent's fixed User-Agent comes first.
    await internal(
      `/api/storage/internal/mounts/${mountA.id}/link?path=${q('Movies/Film (2020)/film.mkv')}`,
      {
        'x-svc-drive-user-agent': 'EnvAgent/2',
      },
    );
    expect(driveA.lastUserAgent).toBe('EnvAgent/2');
  });

  it('DRIVE_B: assembles the CDN link locally (no expiry) with the built-in User-Agent', async () => {
    const calls = { ...driveB.calls };
    const answer = await internal(
      `/api/storage/internal/mounts/${mountB.id}/link?path=${q('Media/readme.txt')}`,
    );
    expect(answer.status, answer.body.toString()).toBe(200);
    const link = JSON.parse(answer.body.toString()) as DirectLinkResponse;
    expect(link).toMatchObject({
      provider: 'drive_b',
      expiresAt: null,
      headers: { 'user-agent': DEFAULT_DRIVE_USER_AGENT },
    });
    expect(link.url).toMatch(new RegExp(`^http://${driveB.cdnHost}/download/[A-Za-z0-9_-]+\\?access_token=`));
    expect(driveB.calls.download).toBe(calls.download);
  });

  it('answers DRIVE_TOKEN_INVALID when the drive refuses the token, and a local mount has no link', async () => {
    driveA.tokens.clear();
    try {
      const answer = await internal(`/api/storage/internal/mounts/${mountA.id}/link?path=${q('readme.txt')}`);
      expect(answer.status).toBe(502);
      expect(JSON.parse(answer.body.toString())).toMatchObject({ error: { code: 'DRIVE_TOKEN_INVALID' } });
      expect(answer.body.toString()).not.toContain(TOKEN_A);
    } finally {
      driveA.tokens.add(TOKEN_A);
    }
    const { mount } = await storage.localMount();
    const local = await internal(`/api/storage/internal/mounts/${mount.id}/link?path=x`);
    expect(local.status).toBe(400);
  });
});
