import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDriveAServer, type DriveAServer } from '../support/drive-servers/drive-a-server.js';
import { startDriveBServer, type DriveBServer } from '../support/drive-servers/drive-b-server.js';
import type { Transfers } from '../support/drive-servers/drive-tree.js';
import { installBackends } from '../support/install-backends.js';
import { call, startPlaybackInstall, type Json, type PlaybackInstall } from '../support/playback-install.js';
import { waitFor } from '../support/runtime.js';

const backend = installBackends()[0]!;
const KiB = 1024;
const MiB = 1024 * KiB;
const CHUNK = 256 * KiB;
const compact = (id: string) => id.replace(/-/g, '');
const FILMS = {
  '/Films/Heat.1995.mkv': randomBytes(3 * MiB + 123),
  '/Films/Alien.1979.mkv': randomBytes(3 * MiB + 45),
};
const B_FILM = { '/Films/Ronin.1998.mkv': randomBytes(3 * MiB + 7) };

/**
 * Multithread download on drive mounts (docs/drives.md, "Multithread download"): the video cache of the
 * play-agent fills a file of a DRIVE_A mount (read through the storage node) and of a DRIVE_B mount (read
 * from its CDN by the play-agent) with `threads` ranged reads at once, counted at the drive's own download
 * route, and the cached bytes are the drive's. The list of drives the console offers names both mounts.
 */
describe('multithread cache fills of drive mounts', () => {
  let env: PlaybackInstall;
  let driveA: DriveAServer;
  let driveB: DriveBServer;
  let mountA = '';
  let mountB = '';
  let nodeId = '';
  let token = '';
  const items: Record<string, string> = {};

  const cacheConfig = (vfs: Json) => env.admin('PATCH', `/api/config/nodes/${nodeId}/cache-config`, { vfs });
  const driveLibrary = async (name: string, mountId: string) => {
    const library = await env.admin('POST', '/api/media/libraries', {
      name,
      type: 'movies',
      sources: [{ nodeId: env.install.context.settings.storageNodeId, mountId, path: '/Films' }],
    });
    expect(library.status, library.text).toBe(201);
    const id = String(library.body.id);
    await waitFor(
      async () => {
        const state = await env.admin('GET', `/api/media/libraries/${id}/scan`);
        const scan = (state.body.scan ?? {}) as Json;
        if (scan.state === 'failed') throw new Error(`scan failed: ${state.text}`);
        return scan.state === 'succeeded' ? true : undefined;
      },
      120_000,
      250,
    );
    return id;
  };

  beforeAll(async () => {
    env = await startPlaybackInstall(backend.env);
    nodeId = env.install.context.settings.embeddedPlayAgentNodeId;
    driveA = await startDriveAServer(FILMS, { token: 'drive-a-threads' });
    driveB = await startDriveBServer(B_FILM, { token: 'drive-b-threads' });
    const accountA = await env.admin('POST', '/api/storage/drive-accounts', {
      name: 'a',
      kind: 'drive_a',
      config: { url: driveA.url, token: 'drive-a-threads', allowPrivateNetwork: true },
    });
    const accountB = await env.admin('POST', '/api/storage/drive-accounts', {
      name: 'b',
      kind: 'drive_b',
      config: {
        url: driveB.url,
        cdnHost: driveB.cdnHost,
        cdnScheme: 'http',
        accessToken: 'drive-b-threads',
        allowPrivateNetwork: true,
      },
    });
    expect([accountA.status, accountB.status], accountA.text + accountB.text).toEqual([201, 201]);
    const a = await env.admin('POST', '/api/storage/mounts', {
      name: 'drive-a',
      provider: 'drive_a',
      config: { accountId: String(accountA.body.id) },
    });
    const b = await env.admin('POST', '/api/storage/mounts', {
      name: 'drive-b',
      provider: 'drive_b',
      config: { accountId: String(accountB.body.id) },
    });
    expect([a.status, b.status], a.text + b.text).toEqual([201, 201]);
    mountA = String(a.body.id);
    mountB = String(b.body.id);
    const libraries = [await driveLibrary('Drive A', mountA), await driveLibrary('Drive B', mountB)];

    await env.createUser('threads', 'threads-password-1');
    const signIn = await call(env.playAgent, 'POST', '/emby/Users/AuthenticateByName', {
      headers: { 'x-emby-authorization': 'MediaBrowser Client="Emby for Android", DeviceId="dev-threads"' },
      body: { Username: 'threads', Pw: 'threads-password-1' },
    });
    expect(signIn.status, signIn.text).toBe(200);
    token = String(signIn.body.AccessToken);
    const userId = String((signIn.body.User as Json).Id);
    for (const libraryId of libraries) {
      const listed = await call(
        env.playAgent,
        'GET',
        `/Users/${userId}/Items?ParentId=${compact(libraryId)}&Recursive=true&IncludeItemTypes=Movie`,
        { headers: { 'x-emby-token': token } },
      );
      for (const item of listed.body.Items as Json[]) items[String(item.Name)] = String(item.Id);
    }
    expect(Object.keys(items).sort()).toEqual(['Alien', 'Heat', 'Ronin']);
    // Each download waits a little before answering, so that parallel ones overlap at the server.
    driveA.transfers.delayMs = 30;
    driveB.transfers.delayMs = 30;
  }, 300_000);

  afterAll(async () => {
    await env?.stop();
    await Promise.allSettled([driveA?.stop(), driveB?.stop()]);
    await backend.cleanup();
  });

  /** Plays the first 64 KiB (the whole-file download does the rest), then waits for the complete entry. */
  const fillByPlaying = async (itemId: string, size: number) => {
    const answer = await request(`${env.playAgent}/Videos/${itemId}/stream?static=true&api_key=${token}`, {
      headers: { range: 'bytes=0-65535' },
    });
    expect(answer.statusCode).toBe(206);
    await answer.body.dump();
    await waitFor(
      async () => {
        const listed = await env.admin(
          'GET',
          `/api/config/nodes/${nodeId}/proxy/cache/vfs-items?pageSize=200`,
        );
        const entry = ((listed.body.rows ?? []) as Json[])
          .flatMap((row) => row.entries as Json[])
          .find((row) => typeof row.itemId === 'string' && compact(row.itemId) === itemId);
        return entry && entry.cachedBytes === size ? entry : undefined;
      },
      60_000,
      100,
    );
  };

  /** The whole file played again comes from the cache: the drive serves no byte of it. */
  const playsFromCache = async (itemId: string, bytes: Buffer, transfers: Transfers) => {
    const before = transfers.ranged;
    const answer = await request(`${env.playAgent}/Videos/${itemId}/stream?static=true&api_key=${token}`);
    expect(answer.statusCode).toBe(200);
    expect(Buffer.from(await answer.body.arrayBuffer()).equals(bytes)).toBe(true);
    expect(transfers.ranged).toBe(before);
  };

  it('offers the drive mounts for multithread parameters', async () => {
    const drives = await env.admin('GET', `/api/config/nodes/${nodeId}/cache-config/drives`);
    expect(drives.status, drives.text).toBe(200);
    const listed = drives.body.drives as Json[];
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ driveId: mountA, name: 'drive-a', provider: 'drive_a' }),
        expect.objectContaining({ driveId: mountB, name: 'drive-b', provider: 'drive_b' }),
      ]),
    );
    // The install's local mount is not a drive: it has no multithread parameters.
    expect(listed.every((drive) => drive.provider !== 'local')).toBe(true);
  });

  it('fills a DRIVE_A file with one ranged read at a time without parameters, with `threads` at once with them', async () => {
    const enabled = await cacheConfig({
      enabled: true,
      mode: 'READ_AHEAD',
      readAheadBytes: 0,
      driveThreads: [],
    });
    expect(enabled.status, enabled.text).toBe(200);
    driveA.transfers.maxActive = 0;
    await fillByPlaying(items.Heat!, FILMS['/Films/Heat.1995.mkv'].length);
    // The fill's single reads, and at most the stream's own read beside one of them.
    expect(driveA.transfers.maxActive).toBeLessThanOrEqual(2);
    await playsFromCache(items.Heat!, FILMS['/Films/Heat.1995.mkv'], driveA.transfers);

    const threaded = await cacheConfig({
      driveThreads: [{ driveId: mountA, threads: 4, chunkSizeBytes: CHUNK }],
    });
    expect(threaded.status, threaded.text).toBe(200);
    driveA.transfers.maxActive = 0;
    const rangedBefore = driveA.transfers.ranged;
    await fillByPlaying(items.Alien!, FILMS['/Films/Alien.1979.mkv'].length);
    expect(driveA.transfers.maxActive).toBeGreaterThanOrEqual(4);
    expect(driveA.transfers.maxActive).toBeLessThanOrEqual(5);
    // 3 MiB in chunks of 256 KiB: at least 12 ranged reads.
    expect(driveA.transfers.ranged - rangedBefore).toBeGreaterThanOrEqual(12);
    await playsFromCache(items.Alien!, FILMS['/Films/Alien.1979.mkv'], driveA.transfers);
  });

  it('fills a DRIVE_B file read from its CDN with `threads` ranged reads at once', async () => {
    const threaded = await cacheConfig({
      enabled: true,
      mode: 'READ_AHEAD',
      readAheadBytes: 0,
      driveThreads: [{ driveId: mountB, threads: 3, chunkSizeBytes: CHUNK }],
    });
    expect(threaded.status, threaded.text).toBe(200);
    driveB.transfers.maxActive = 0;
    const rangedBefore = driveB.transfers.ranged;
    await fillByPlaying(items.Ronin!, B_FILM['/Films/Ronin.1998.mkv'].length);
    // Besides the fill's reads the CDN serves the stream's own read and the preference's first
    // measurement of the host (the first read from it starts one): no upper bound here.
    expect(driveB.transfers.maxActive).toBeGreaterThanOrEqual(3);
    // 3 MiB in chunks of 256 KiB (without parameters: one read of 4 MiB).
    expect(driveB.transfers.ranged - rangedBefore).toBeGreaterThanOrEqual(12);
    await playsFromCache(items.Ronin!, B_FILM['/Films/Ronin.1998.mkv'], driveB.transfers);
  });
});
