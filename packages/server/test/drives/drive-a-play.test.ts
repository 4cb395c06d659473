import { readFileSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installBackends } from '../support/install-backends.js';
import { startDriveAServer, type DriveAServer } from '../support/drive-servers/drive-a-server.js';
import { call, startPlaybackInstall, type Json, type PlaybackInstall } from '../support/playback-install.js';
import { waitFor } from '../support/runtime.js';
import { SERVICE_TOKEN_HEADER } from '../../src/platform/service-token.js';

const backend = installBackends()[0]!;
const TOKEN = 'alist-token-for-a-whole-install';
const compact = (id: string) => id.replace(/-/g, '');

/** policy.refresh of the play-agent under test (SVC_PLAY_AGENT_POLICY_REFRESH_SECONDS; 30 s by default). */
const POLICY_REFRESH_SECONDS = 3;

/**
 * A whole install (control plane, storage node, play-agent) with a library on a DRIVE_A mount that names a
 * drive account: the scan lists through the drive, and the play-agent's stream route applies the redirect
 * after the gate: video playback is redirected, downloads are proxied, a redirected play reaches the activity
 * log with 0 bytes, turning the switch off returns to proxied playback within the policy refresh (user
 * settings kept), an exhausted quota is refused before any link.
 */
describe('DRIVE_A library played through the play-agent', () => {
  let env: PlaybackInstall;
  let drive: DriveAServer;
  let token = '';
  let userUuid = '';
  const items: Record<string, string> = {};
  let film: Buffer;

  const stream = (id: string) => request(`${env.playAgent}/Videos/${id}/stream?static=true&api_key=${token}`);

  beforeAll(async () => {
    env = await startPlaybackInstall(backend.env, {
      PLAY_AGENT_DRIVE_A_REDIRECT_ALLOWED_HOSTS: '127.0.0.1',
      SVC_PLAY_AGENT_POLICY_REFRESH_SECONDS: String(POLICY_REFRESH_SECONDS),
    });
    film = readFileSync(
      path.join(env.fixtures.library, 'Movies', 'The.Matrix.1999.1080p.BluRay.x264-GRP.mp4'),
    );
    drive = await startDriveAServer(
      {
        '/Films/The.Matrix.1999.1080p.BluRay.x264-GRP.mp4': film,
        '/Films/Inception.2010.1080p.BluRay.x264-GRP.mp4': film,
      },
      { token: TOKEN },
    );
    const account = await env.admin('POST', '/api/storage/drive-accounts', {
      name: 'cloud account',
      kind: 'drive_a',
      config: { url: drive.url, token: TOKEN, allowPrivateNetwork: true },
    });
    expect(account.status, account.text).toBe(201);
    const mount = await env.admin('POST', '/api/storage/mounts', {
      name: 'cloud',
      provider: 'drive_a',
      config: { accountId: String(account.body.id), root: '/' },
    });
    expect(mount.status, mount.text).toBe(201);
    const library = await env.admin('POST', '/api/media/libraries', {
      name: 'Cloud',
      type: 'movies',
      sources: [
        {
          nodeId: env.install.context.settings.storageNodeId,
          mountId: String(mount.body.id),
          path: '/Films',
        },
      ],
    });
    expect(library.status, library.text).toBe(201);
    const libraryId = String(library.body.id);
    await waitFor(
      async () => {
        const state = await env.admin('GET', `/api/media/libraries/${libraryId}/scan`);
        const scan = (state.body.scan ?? {}) as Json;
        if (scan.state === 'failed') throw new Error(`scan failed: ${state.text}`);
        return scan.state === 'succeeded' ? true : undefined;
      },
      120_000,
      250,
    );

    userUuid = await env.createUser('cloudy', 'cloudy-password-1');
    const mode = await env.admin('PATCH', `/api/auth/admin/users/${userUuid}`, {
      driveAPlayMode: 'redirect',
    });
    expect(mode.status, mode.text).toBe(200);
    const signIn = await call(env.playAgent, 'POST', '/emby/Users/AuthenticateByName', {
      headers: { 'x-emby-authorization': 'MediaBrowser Client="Emby for Android", DeviceId="dev-drive-1"' },
      body: { Username: 'cloudy', Pw: 'cloudy-password-1' },
    });
    expect(signIn.status, signIn.text).toBe(200);
    token = String(signIn.body.AccessToken);
    const userId = String((signIn.body.User as Json).Id);
    const listed = await call(
      env.playAgent,
      'GET',
      `/Users/${userId}/Items?ParentId=${compact(libraryId)}&Recursive=true&IncludeItemTypes=Movie`,
      { headers: { 'x-emby-token': token } },
    );
    for (const item of listed.body.Items as Json[]) items[String(item.Name)] = String(item.Id);
    expect(Object.keys(items).sort(), listed.text).toEqual(['Inception', 'The Matrix']);

    const policy = await env.admin('PUT', '/api/config/play-agent/policy', { driveARedirect: true });
    expect(policy.status, policy.text).toBe(200);
  }, 300_000);

  afterAll(async () => {
    await env?.stop();
    await drive?.stop();
    await backend.cleanup();
  });

  it('redirects video playback once the policy refresh brought the switch, and proxies downloads', async () => {
    // Proxied until the play-agent's next policy refresh (every 30 s) brings the switch.
    const location = await waitFor(
      async () => {
        const answer = await stream(items['The Matrix']!);
        await answer.body.dump();
        return answer.statusCode === 302 ? String(answer.headers.location) : undefined;
      },
      90_000,
      500,
    );
    expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/d\/Films\/The\.Matrix[^?]*\?expires=\d+&sign=/);
    const direct = await request(location);
    expect(Buffer.from(await direct.body.arrayBuffer()).equals(film)).toBe(true);

    const download = await request(`${env.playAgent}/Items/${items['The Matrix']}/Download?api_key=${token}`);
    expect(download.statusCode).toBe(200);
    expect(download.headers.location).toBeUndefined();
    expect(Buffer.from(await download.body.arrayBuffer()).equals(film)).toBe(true);
  });

  it('reports a redirected play in the activity log and the report with 0 bytes', async () => {
    const id = items.Inception!;
    const answer = await stream(id);
    await answer.body.dump();
    expect(answer.statusCode).toBe(302);
    // The player fetches the bytes from the drive, then reports the play as usual.
    const direct = await request(String(answer.headers.location));
    await direct.body.dump();
    const auth = { 'x-emby-token': token };
    for (const [route, body] of [
      ['/Sessions/Playing', { ItemId: id, PlaySessionId: 'redirected-1', PositionTicks: 0 }],
      [
        '/Sessions/Playing/Progress',
        { ItemId: id, PlaySessionId: 'redirected-1', PositionTicks: 50_000_000 },
      ],
      ['/Sessions/Playing/Stopped', { ItemId: id, PlaySessionId: 'redirected-1', PositionTicks: 90_000_000 }],
    ] as const) {
      const reported = await call(env.playAgent, 'POST', route, { headers: auth, body });
      expect(reported.status, reported.text).toBeLessThan(300);
    }
    const events = await waitFor(
      async () => {
        const log = await call(
          env.install.url('user'),
          'GET',
          `/api/auth/internal/activity?userId=${userUuid}&limit=500`,
          { headers: { [SERVICE_TOKEN_HEADER]: env.install.context.serviceToken } },
        );
        const mine = (log.body.events as Json[]).filter((event) => event.sessionId === 'redirected-1');
        return mine.some((event) => event.eventType === 'stop') ? mine : undefined;
      },
      60_000,
      250,
    );
    expect(events.map((event) => event.eventType)).toEqual(
      expect.arrayContaining(['start', 'progress', 'stop']),
    );
    expect(events.every((event) => Number(event.bytesDelta) === 0)).toBe(true);
    expect(compact(String(events[0]!.mediaId))).toBe(id);
    // The playback report counts the play, with no bytes.
    const top = await env.admin(
      'GET',
      `/api/auth/admin/reports/top-media?preset=last24h&sort=playCount&userId=${userUuid}`,
    );
    expect(top.status, top.text).toBe(200);
    const row = (top.body.items as Json[]).find((entry) => compact(String(entry.mediaId)) === id);
    expect(row).toMatchObject({ playCount: 1, bytes: 0 });
  });

  it('turning the switch off returns to proxied playback within the policy refresh; the user mode is kept', async () => {
    const id = items['The Matrix']!;
    const off = await env.admin('PUT', '/api/config/play-agent/policy', { driveARedirect: false });
    expect(off.status, off.text).toBe(200);
    const started = Date.now();
    await waitFor(
      async () => {
        const answer = await stream(id);
        await answer.body.dump();
        return answer.statusCode === 200 ? true : undefined;
      },
      120_000,
      250,
    );
    // Within one refresh period (plus its jitter and a loaded machine's delays), far below the 120 s bound.
    expect(Date.now() - started).toBeLessThan(120_000);
    const proxied = await stream(id);
    expect(proxied.statusCode).toBe(200);
    expect(proxied.headers.location).toBeUndefined();
    expect(Buffer.from(await proxied.body.arrayBuffer()).equals(film)).toBe(true);
    const user = await env.admin('GET', `/api/auth/admin/users/${userUuid}`);
    expect(user.body.driveAPlayMode).toBe('redirect');

    const on = await env.admin('PUT', '/api/config/play-agent/policy', { driveARedirect: true });
    expect(on.status, on.text).toBe(200);
    await waitFor(
      async () => {
        const answer = await stream(id);
        await answer.body.dump();
        return answer.statusCode === 302 ? true : undefined;
      },
      120_000,
      250,
    );
  });

  it('refuses an exhausted quota before any link is asked for', async () => {
    // One byte a day: the download above used it up.
    const quotas = await env.admin('PUT', `/api/auth/admin/users/${userUuid}/quotas`, {
      total: { enabled: true, amount: 0.000001, unit: 'MB', period: 'day' },
      routes: [],
    });
    expect(quotas.status, quotas.text).toBe(200);
    await waitFor(
      async () => {
        const answer = await stream(items['The Matrix']!);
        await answer.body.dump();
        return answer.statusCode === 403 ? true : undefined;
      },
      30_000,
      250,
    );
    const links = drive.calls.get;
    const refused = await stream(items.Inception!);
    expect(refused.statusCode).toBe(403);
    expect(refused.headers.location).toBeUndefined();
    expect(((await refused.body.json()) as Json).error).toMatchObject({ code: 'QUOTA_EXHAUSTED' });
    expect(drive.calls.get).toBe(links);
  });
});
