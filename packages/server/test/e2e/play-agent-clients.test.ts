import { parse as parseDisposition } from 'content-disposition';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Jellyfin } from '@jellyfin/sdk';
import {
  getLibraryApi,
  getMediaInfoApi,
  getSessionApi,
  getSystemApi,
  getUserViewApi,
} from '@jellyfin/sdk/lib/utils/api/index.js';
import { BaseItemKind } from '@jellyfin/sdk/lib/generated-client/models/base-item-kind.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_TOKEN_HEADER } from '../../src/platform/service-token.js';
import { installBackends } from '../support/install-backends.js';
import { call, startPlaybackInstall, type Json, type PlaybackInstall } from '../support/playback-install.js';
import { waitFor } from '../support/runtime.js';

const run = promisify(execFile);
const EMBY_AUTH = (token?: string) =>
  `Emby Client="Emby Theater", Device="Living%20Room", DeviceId="dev-emby-1", Version="3.0.20"${token ? `, Token="${token}"` : ''}`;
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

interface Item extends Json {
  Id: string;
  Name: string;
  Type: string;
}

/**
 * Real clients against the whole install (control plane, storage node, play-agent) with the generated
 * library: raw Emby-style requests, the Jellyfin SDK, ffprobe/ffmpeg on the stream URL and curl for Range.
 */
describe.each(installBackends())('the play-agent with real clients on $label', (backend) => {
  let env: PlaybackInstall;
  let viewerId: string;
  let serviceToken: string;

  beforeAll(async () => {
    env = await startPlaybackInstall(backend.env);
    viewerId = await env.createUser('viewer', 'viewer-password-1');
    serviceToken = env.install.context.serviceToken;
  }, 240_000);

  afterAll(async () => {
    await env?.stop();
    await backend.cleanup();
  });

  const emby = (
    method: string,
    route: string,
    token?: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    call(env.playAgent, method, route, {
      headers: { 'x-emby-authorization': EMBY_AUTH(token), ...headers },
      ...(body === undefined ? {} : { body }),
    });

  async function signIn(
    username = 'viewer',
    password = 'viewer-password-1',
  ): Promise<{ token: string; userId: string }> {
    const answer = await emby('POST', '/emby/Users/AuthenticateByName', undefined, {
      Username: username,
      Pw: password,
    });
    expect(answer.status, answer.text).toBe(200);
    return { token: String(answer.body.AccessToken), userId: String((answer.body.User as Json).Id) };
  }

  async function activity(userId: string): Promise<Json[]> {
    const answer = await call(
      env.install.url('user'),
      'GET',
      `/api/auth/internal/activity?userId=${userId}&limit=500`,
      {
        headers: { [SERVICE_TOKEN_HEADER]: serviceToken },
      },
    );
    expect(answer.status, answer.text).toBe(200);
    return answer.body.events as Json[];
  }

  it('lets web players on another origin call it: preflight answered before sign-in, answers allow any origin', async () => {
    const origin = 'http://console.example:18080';
    const preflight = await call(env.playAgent, 'OPTIONS', '/emby/Sessions/Playing', {
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-emby-authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain(
      'x-emby-authorization',
    );

    const { token } = await signIn();
    const report = await emby(
      'POST',
      '/Sessions/Playing',
      token,
      { ItemId: 'none', PlaySessionId: 'cors-check' },
      {
        origin,
      },
    );
    expect(report.headers['access-control-allow-origin']).toBe('*');
    const refused = await emby('GET', '/Users/Public/Items', undefined, undefined, { origin });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    // Without an Origin (players that are not browsers) nothing changes.
    expect((await emby('GET', '/System/Info/Public')).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers server information anonymously, uncompressed, with the server id players sign in to', async () => {
    const info = await call(env.playAgent, 'GET', '/emby/system/info/public', {
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(info.status).toBe(200);
    expect(info.headers['content-encoding']).toBeUndefined();
    expect(info.body).toMatchObject({ ServerName: 'SVC Media', ProductName: 'SVC Media Server' });
    expect(String(info.body.Id)).toMatch(/^[0-9a-f]{32}$/);
    expect(String(info.body.LocalAddress)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const signedIn = await emby('POST', '/Users/AuthenticateByName', undefined, {
      Username: 'viewer',
      Pw: 'viewer-password-1',
    });
    expect(signedIn.body.ServerId).toBe(info.body.Id);
    expect(String(signedIn.body.AccessToken)).toMatch(/^svc_ply_/);
    expect(signedIn.body.User).toMatchObject({ Name: 'viewer', Id: viewerId.replace(/-/g, '') });
    expect(signedIn.body.SessionInfo).toMatchObject({
      Client: 'Emby Theater',
      DeviceName: 'Living Room',
      DeviceId: 'dev-emby-1',
    });

    // The protocol server information setting shows on Emby's /System/Info/Public at once (within a second).
    const renamed = await env.admin('PUT', '/api/media/protocol/proto_a/settings', {
      serverName: 'Home',
      productName: 'Home Media',
      Version: 'ignored',
    });
    expect(renamed.body).toEqual({ serverName: 'Home', productName: 'Home Media' });
    await waitFor(
      async () =>
        (await call(env.playAgent, 'GET', '/emby/System/Info/Public')).body.ServerName === 'Home'
          ? true
          : undefined,
      3_000,
    );
    expect((await call(env.playAgent, 'GET', '/emby/System/Info/Public')).body).toMatchObject({
      ServerName: 'Home',
      ProductName: 'Home Media',
      Id: info.body.Id,
    });
    expect(
      (await env.admin('PUT', '/api/media/protocol/proto_a/settings', { serverName: '', productName: 'x' }))
        .status,
    ).toBe(400);
    await env.admin('PUT', '/api/media/protocol/proto_a/settings', {
      serverName: 'SVC Media',
      productName: 'SVC Media Server',
    });

    expect((await call(env.playAgent, 'GET', '/System/Ping')).status).toBe(200);
    expect((await call(env.playAgent, 'GET', '/Users/Public')).body).toEqual([]);
    expect((await emby('GET', '/System/Info')).status).toBe(401);
  });

  it('plays through raw Emby requests: /emby prefix, X-Emby-Authorization, Users/{id}/Items, PlaybackInfo, Range, reports', async () => {
    const { token, userId } = await signIn();
    const views = await emby('GET', `/emby/Users/${userId}/Views`, token);
    expect(views.status, views.text).toBe(200);
    const viewItems = views.body.Items as Item[];
    expect(viewItems.map((view) => view.Name).sort()).toEqual(['Movies', 'Shows']);
    const moviesView = viewItems.find((view) => view.Name === 'Movies')!;
    expect(moviesView).toMatchObject({ Type: 'CollectionFolder', CollectionType: 'movies' });
    const root = await emby('GET', `/Users/${userId}/Items/Root`, token);
    expect(root.body).toMatchObject({ Type: 'UserRootFolder', IsFolder: true });
    const rootChildren = await emby('GET', `/Users/${userId}/Items?ParentId=${String(root.body.Id)}`, token);
    expect((rootChildren.body.Items as Item[]).map((view) => view.Name).sort()).toEqual(['Movies', 'Shows']);

    // Case-insensitive paths and query names, comma-separated lists.
    const movies = await emby(
      'GET',
      `/EMBY/users/${userId}/ITEMS?parentid=${moviesView.Id}&Recursive=true&IncludeItemTypes=Movie,Episode&Fields=Overview,MediaSources&SortBy=SortName&sortorder=Ascending`,
      token,
    );
    expect(movies.status, movies.text).toBe(200);
    const movieItems = movies.body.Items as Item[];
    expect(movieItems.map((item) => item.Name).sort()).toEqual(
      env.fixtures.movies.map((movie) => movie.title).sort(),
    );
    expect(movies.body.TotalRecordCount).toBe(env.fixtures.movies.length);
    const matrix = movieItems.find((item) => item.Name === 'The Matrix')!;
    expect(matrix).toMatchObject({
      Type: 'Movie',
      MediaType: 'Video',
      IsFolder: false,
      ServerId: expect.any(String) as unknown,
    });
    expect(matrix.RunTimeTicks).toBeGreaterThan(0);
    expect((matrix.MediaSources as Json[])[0]).toMatchObject({
      Protocol: 'File',
      Container: 'mp4',
      SupportsDirectPlay: true,
    });

    const paged = await emby(
      'GET',
      `/Users/${userId}/Items?ParentId=${moviesView.Id}&StartIndex=1&Limit=1`,
      token,
    );
    expect((paged.body.Items as Item[]).length).toBe(1);
    expect(paged.body.TotalRecordCount).toBe(env.fixtures.movies.length);

    const detail = await emby('GET', `/Users/${userId}/Items/${matrix.Id}`, token);
    expect(detail.body).toMatchObject({ Id: matrix.Id, Name: 'The Matrix', UserData: { Played: false } });

    const info = await emby('POST', `/Items/${matrix.Id}/PlaybackInfo?UserId=${userId}`, token, {
      DeviceProfile: {},
    });
    expect(info.status, info.text).toBe(200);
    const source = (info.body.MediaSources as Json[])[0]!;
    const playSessionId = String(info.body.PlaySessionId);
    expect(source).toMatchObject({
      Id: matrix.Id,
      SupportsDirectStream: true,
      Size: expect.any(Number) as unknown,
    });
    const size = Number(source.Size);
    const file = readFileSync(
      path.join(env.fixtures.library, env.fixtures.movies.find((m) => m.title === 'The Matrix')!.file),
    );
    expect(size).toBe(file.length);

    // Range is answered with 206 and the exact bytes.
    const ranged = await request(`${env.playAgent}${String(source.DirectStreamUrl)}`, {
      headers: { range: 'bytes=100-1099' },
    });
    expect(ranged.statusCode).toBe(206);
    expect(ranged.headers['content-range']).toBe(`bytes 100-1099/${size}`);
    expect(ranged.headers['content-encoding']).toBeUndefined();
    expect(sha(Buffer.from(await ranged.body.arrayBuffer()))).toBe(sha(file.subarray(100, 1100)));

    const whole = await request(
      `${env.playAgent}/emby/Videos/${matrix.Id}/stream.mp4?static=true&api_key=${token}`,
    );
    expect(whole.statusCode).toBe(200);
    expect(sha(Buffer.from(await whole.body.arrayBuffer()))).toBe(sha(file));

    const runtime = Number(matrix.RunTimeTicks);
    for (const [route, position] of [
      ['/Sessions/Playing', 0],
      ['/Sessions/Playing/Progress', Math.round(runtime / 2)],
      ['/Sessions/Playing/Stopped', runtime],
    ] as const) {
      const report = await emby('POST', `/emby${route}`, token, {
        ItemId: matrix.Id,
        PlaySessionId: playSessionId,
        PositionTicks: position,
        PlayMethod: 'DirectStream',
      });
      expect(report.status, report.text).toBe(204);
    }
    const played = await emby('GET', `/Users/${userId}/Items/${matrix.Id}`, token);
    expect(played.body.UserData).toMatchObject({ Played: true, PlayCount: 1 });

    const events = await waitFor(async () => {
      const list = (await activity(viewerId)).filter((event) => event.sessionId === playSessionId);
      return list.length === 3 ? list.reverse() : undefined;
    });
    expect(events.map((event) => event.eventType)).toEqual(['start', 'progress', 'stop']);
    const total = events.reduce((sum, event) => sum + Number(event.bytesDelta), 0);
    expect(total).toBe(1000 + size);
    expect(events[0]).toMatchObject({
      mediaType: 'movie',
      mediaName: 'The Matrix',
      client: 'Emby Theater',
      deviceName: 'Living Room',
      deviceId: 'dev-emby-1',
    });
  });

  it('completes the Jellyfin SDK flow: sign-in, views, items, PlaybackInfo, stream URL with ffprobe, reports', async () => {
    const jellyfin = new Jellyfin({
      clientInfo: { name: 'SDK Test', version: '1.0.0' },
      deviceInfo: { name: 'CI', id: 'sdk-device-1' },
    });
    const api = jellyfin.createApi(env.playAgent);
    const publicInfo = await getSystemApi(api).getPublicSystemInfo();
    expect(publicInfo.data.Id).toMatch(/^[0-9a-f]{32}$/);
    const auth = await api.authenticateUserByName('viewer', 'viewer-password-1');
    expect(auth.data.AccessToken).toMatch(/^svc_ply_/);
    const userId = auth.data.User!.Id!;

    const views = await getUserViewApi(api).getUserViews({ userId });
    const shows = views.data.Items!.find((view) => view.Name === 'Shows')!;
    expect(shows.CollectionType).toBe('tvshows');
    const episodes = await getLibraryApi(api).getItems({
      userId,
      parentId: shows.Id!,
      recursive: true,
      includeItemTypes: [BaseItemKind.Episode],
      sortBy: ['ParentIndexNumber', 'IndexNumber'] as never,
    });
    const expected = env.fixtures.series[0]!.seasons.flatMap((season) => season.episodes);
    expect(episodes.data.TotalRecordCount).toBe(expected.length);
    const first = episodes.data.Items!.find(
      (item) => item.ParentIndexNumber === 1 && item.IndexNumber === 1,
    )!;
    expect(first.SeriesName).toBe('Show');

    const info = await getMediaInfoApi(api).getPostedPlaybackInfo({
      itemId: first.Id!,
      userId,
      playbackInfoDto: {},
    });
    const source = info.data.MediaSources![0]!;
    expect(source.SupportsDirectPlay).toBe(true);
    // Jellyfin clients build the direct stream address themselves.
    const url = `${env.playAgent}/Videos/${first.Id!}/stream?static=true&mediaSourceId=${source.Id!}&playSessionId=${info.data.PlaySessionId!}&ApiKey=${auth.data.AccessToken!}`;
    const probe = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'json',
      url,
    ]);
    expect(
      Number((JSON.parse(probe.stdout) as { format: { duration: string } }).format.duration),
    ).toBeGreaterThan(1);

    const playstate = getSessionApi(api);
    const sessionId = info.data.PlaySessionId!;
    await playstate.reportPlaybackStart({
      playbackStartInfo: { ItemId: first.Id!, PlaySessionId: sessionId, PositionTicks: 0 },
    });
    await playstate.reportPlaybackProgress({
      playbackProgressInfo: { ItemId: first.Id!, PlaySessionId: sessionId, PositionTicks: 10_000_000 },
    });
    await playstate.reportPlaybackStopped({
      playbackStopInfo: { ItemId: first.Id!, PlaySessionId: sessionId, PositionTicks: 10_000_000 },
    });

    const resume = await call(env.playAgent, 'GET', `/UserItems/Resume?userId=${userId}`, {
      headers: {
        authorization: `MediaBrowser Client="SDK Test", Device="CI", DeviceId="sdk-device-1", Version="1.0.0", Token="${auth.data.AccessToken!}"`,
      },
    });
    expect((resume.body.Items as Item[]).map((item) => item.Id)).toContain(first.Id);

    const events = await waitFor(async () => {
      const list = (await activity(viewerId)).filter((event) => event.sessionId === sessionId);
      return list.length === 3 ? list.reverse() : undefined;
    });
    expect(events.reduce((sum, event) => sum + Number(event.bytesDelta), 0)).toBeGreaterThan(0);
    expect(events[0]).toMatchObject({
      client: 'SDK Test',
      deviceId: 'sdk-device-1',
      mediaType: 'episode',
      seriesName: 'Show',
    });
  });

  it('lets ffmpeg seek into an MP4 with the moov atom at the end and into an MKV', async () => {
    const { token, userId } = await signIn();
    const all = await emby('GET', `/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Movie`, token);
    let seeks = 0;
    for (const movie of all.body.Items as Item[]) {
      const fixture = env.fixtures.movies.find((candidate) => candidate.title === movie.Name)!;
      if (fixture.moov !== 'end' && fixture.container !== 'matroska') continue;
      const url = `${env.playAgent}/Videos/${movie.Id}/stream?static=true&api_key=${token}`;
      const seekTo = Math.max(0.5, fixture.durationSeconds / 2);
      const result = await run('ffmpeg', [
        '-v',
        'error',
        '-ss',
        String(seekTo),
        '-i',
        url,
        '-frames:v',
        '1',
        '-f',
        'null',
        '-',
      ]);
      expect(result.stderr).toBe('');
      seeks += 1;
    }
    expect(seeks).toBe(2);
  });

  it('answers Range edge cases with curl', async () => {
    const { token, userId } = await signIn();
    const list = await emby('GET', `/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Movie`, token);
    const movie = (list.body.Items as Item[])[0]!;
    const url = `${env.playAgent}/Videos/${movie.Id}/stream?static=true&api_key=${token}`;
    const curl = async (...args: string[]) => {
      const out = await run('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code} %{size_download}',
        ...args,
        url,
      ]);
      const [code, bytes] = out.stdout.split(' ');
      return { code: Number(code), bytes: Number(bytes) };
    };
    expect(await curl('-r', '0-0')).toEqual({ code: 206, bytes: 1 });
    expect(await curl('-H', 'Range: bytes=-500')).toEqual({ code: 206, bytes: 500 });
    for (const bad of [
      'bytes=0-1a',
      'bytes=-0',
      `bytes=${'9'.repeat(22)}-`,
      `bytes=${Array.from({ length: 200 }, (_, i) => `${i}-${i}`).join(',')}`,
      'bytes=999999999999-',
    ]) {
      expect(await curl('-H', `Range: ${bad}`), bad).toEqual({
        code: 416,
        bytes: expect.any(Number) as unknown,
      });
    }
    const head = await run('curl', ['-s', '-I', url]);
    expect(head.stdout).toMatch(/accept-ranges: bytes/i);
  });

  it('refuses bad input: unknown items, other accounts, missing and forged tokens', async () => {
    const { token, userId } = await signIn();
    const unknown = '0123456789abcdef0123456789abcdef';
    expect((await emby('GET', `/Users/${userId}/Items/${unknown}`, token)).status).toBe(404);
    expect((await emby('GET', `/Videos/${unknown}/stream`, token)).status).toBe(404);
    expect((await emby('GET', `/Videos/not-an-id/stream`, token)).status).toBe(404);
    const rootId = await signIn('root', 'root-password-1');
    expect((await emby('GET', `/Users/${rootId.userId}/Items`, token)).status).toBe(403);
    expect((await emby('GET', `/Users/${userId}/Views`)).status).toBe(401);
    expect((await emby('GET', `/Users/${userId}/Views`, 'svc_ply_forged-token-value')).status).toBe(401);
    const forgedStream = await request(`${env.playAgent}/Videos/${unknown}/stream?api_key=svc_ply_forged`);
    expect(forgedStream.statusCode).toBe(401);
    expect((await forgedStream.body.arrayBuffer()).byteLength).toBeLessThan(300);
  });

  async function firstMovie(token: string, userId: string): Promise<Item> {
    const list = await emby(
      'GET',
      `/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Movie&SortBy=SortName`,
      token,
    );
    return (list.body.Items as Item[])[0]!;
  }

  async function statusOf(
    url: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; code?: string; bytes: number }> {
    const answer = await request(url, { headers });
    const body = Buffer.from(await answer.body.arrayBuffer());
    let code: string | undefined;
    if (answer.statusCode >= 400)
      code = (JSON.parse(body.toString('utf8')) as { error: { code: string } }).error.code;
    return { status: answer.statusCode, ...(code ? { code } : {}), bytes: body.length };
  }

  it("applies node access, tightens it per manual address and attributes the address's traffic", async () => {
    const userId = await env.createUser('routed', 'routed-password-1');
    const { token, userId: protocolUserId } = await signIn('routed', 'routed-password-1');
    const nodeId = env.install.context.settings.playAgent.nodeId;
    const endpoint = await env.createEndpoint('play.example.test');
    const movie = await firstMovie(token, protocolUserId);
    const url = `${env.playAgent}/Videos/${movie.Id}/stream?static=true&api_key=${token}`;
    const range = { range: 'bytes=0-9999' };
    const via = (endpointToken: string) => ({ ...range, 'x-svc-endpoint-token': endpointToken });

    const access = (body: unknown) => env.admin('PUT', `/api/auth/admin/users/${userId}/node-access`, body);
    expect((await access({ mode: 'ALLOW_LIST', entries: [{ kind: 'node', id: nodeId }] })).status).toBe(200);
    await waitFor(async () =>
      (await statusOf(url, via(endpoint.endpointToken))).code === 'ENDPOINT_NOT_ALLOWED' ? true : undefined,
    );
    expect(await statusOf(url, range)).toEqual({ status: 206, bytes: 10_000 });
    // A forged or unknown endpoint token is a direct request: node access alone decides.
    expect(await statusOf(url, via('svc_ept_forged'))).toEqual({ status: 206, bytes: 10_000 });

    const quota = { enabled: true, amount: 1000, unit: 'MB', period: 'day' };
    expect(
      (
        await env.admin('PUT', `/api/auth/admin/users/${userId}/quotas`, {
          total: null,
          routes: [{ kind: 'endpoint', id: endpoint.nodeId, ...quota }],
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await access({
          mode: 'ALLOW_LIST',
          entries: [
            { kind: 'node', id: nodeId },
            { kind: 'endpoint', id: endpoint.nodeId },
          ],
        })
      ).status,
    ).toBe(200);
    await waitFor(async () =>
      (await statusOf(url, via(endpoint.endpointToken))).status === 206 ? true : undefined,
    );
    const used = await waitFor(async () => {
      const usage = await env.admin('GET', `/api/auth/admin/users/${userId}/usage`);
      const route = (usage.body.quotas as Json[]).find((entry) => entry.id === endpoint.nodeId);
      return route && Number(route.usedBytes) >= 10_000 ? Number(route.usedBytes) : undefined;
    });
    expect(used % 10_000).toBe(0);

    // Regenerating the token: the old one names nothing at once (a direct request, not counted to the address).
    const fresh = await env.regenerateEndpoint(endpoint.nodeId);
    expect(await statusOf(url, via(endpoint.endpointToken))).toEqual({ status: 206, bytes: 10_000 });
    expect((await statusOf(url, via(fresh))).status).toBe(206);

    expect((await access({ mode: 'NONE', entries: [] })).status).toBe(200);
    await waitFor(async () => ((await statusOf(url, range)).code === 'NODE_NOT_ALLOWED' ? true : undefined));
    expect((await emby('POST', `/Items/${movie.Id}/PlaybackInfo`, token, {})).status).toBe(403);
  });

  it('refuses a used-up quota before any byte or link is issued', async () => {
    const userId = await env.createUser('metered', 'metered-password-1');
    const { token, userId: protocolUserId } = await signIn('metered', 'metered-password-1');
    expect(
      (
        await env.admin('PUT', `/api/auth/admin/users/${userId}/quotas`, {
          total: { enabled: true, amount: 1, unit: 'MB', period: 'day' },
          routes: [],
        })
      ).status,
    ).toBe(200);
    const movie = await firstMovie(token, protocolUserId);
    const url = `${env.playAgent}/Videos/${movie.Id}/stream?static=true&api_key=${token}`;
    let served = 0;
    for (let attempt = 0; attempt < 50 && served < 1024 * 1024; attempt++) {
      const answer = await statusOf(url, { range: 'bytes=0-262143' });
      if (answer.status !== 206) break;
      served += answer.bytes;
    }
    expect(served).toBeGreaterThanOrEqual(1024 * 1024);
    const refused = await statusOf(url, { range: 'bytes=0-99' });
    expect(refused).toMatchObject({ status: 403, code: 'QUOTA_EXHAUSTED' });
    expect(refused.bytes).toBeLessThan(300);
    const info = await emby('POST', `/Items/${movie.Id}/PlaybackInfo`, token, {});
    expect(info.status).toBe(403);
    expect(info.text).not.toContain('DirectStreamUrl');
  });

  it('serves external subtitles (also as WebVTT), artwork without a token, downloads as attachments, and HEAD', async () => {
    const { token, userId } = await signIn();
    const list = await emby(
      'GET',
      `/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Movie&Fields=MediaSources`,
      token,
    );
    const arrival = (list.body.Items as Item[]).find((item) => item.Name === 'Arrival')!;
    const streams = (arrival.MediaSources as Json[])[0]!.MediaStreams as Json[];
    expect(streams.filter((stream) => stream.Type === 'Audio').map((stream) => stream.Language)).toEqual([
      'eng',
      'fre',
    ]);
    const external = streams.find((stream) => stream.IsExternal === true)!;
    expect(external).toMatchObject({ Type: 'Subtitle', Language: 'en', DeliveryMethod: 'External' });
    const srt = await call(env.playAgent, 'GET', String(external.DeliveryUrl));
    expect(srt.status).toBe(200);
    expect(srt.text).toMatch(/-->/);
    const vtt = await call(
      env.playAgent,
      'GET',
      String(external.DeliveryUrl).replace('Stream.srt', 'Stream.vtt'),
    );
    expect(vtt.headers['content-type']).toMatch(/^text\/vtt/);
    expect(vtt.text.startsWith('WEBVTT')).toBe(true);
    expect(vtt.text).toMatch(/\d\d:\d\d:\d\d\.\d{3} --> /);
    expect(
      (
        await call(
          env.playAgent,
          'GET',
          String(external.DeliveryUrl).replace(/api_key=[^&]+/, 'api_key=svc_ply_bad'),
        )
      ).status,
    ).toBe(401);

    const tag = (arrival.ImageTags as Json).Primary;
    expect(tag).toEqual(expect.any(String));
    const poster = await request(
      `${env.playAgent}/Items/${arrival.Id}/Images/Primary?tag=${String(tag)}&maxWidth=300`,
    );
    expect(poster.statusCode).toBe(200);
    expect(poster.headers['content-type']).toBe('image/jpeg');
    const fixture = env.fixtures.movies.find((movie) => movie.title === 'Arrival')!;
    expect(sha(Buffer.from(await poster.body.arrayBuffer()))).toBe(
      sha(readFileSync(path.join(env.fixtures.library, fixture.poster!))),
    );
    expect((await call(env.playAgent, 'GET', `/Items/${arrival.Id}/Images/Backdrop`)).status).toBe(404);

    const download = await request(`${env.playAgent}/Items/${arrival.Id}/Download?api_key=${token}`);
    expect(download.statusCode).toBe(200);
    const disposition = parseDisposition(String(download.headers['content-disposition']));
    expect(disposition.type).toBe('attachment');
    expect(disposition.parameters.filename).toBe(path.basename(fixture.file));
    expect(sha(Buffer.from(await download.body.arrayBuffer()))).toBe(
      sha(readFileSync(path.join(env.fixtures.library, fixture.file))),
    );

    const head = await request(`${env.playAgent}/Videos/${arrival.Id}/original.mkv?api_key=${token}`, {
      method: 'HEAD',
    });
    expect(head.statusCode).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(
      readFileSync(path.join(env.fixtures.library, fixture.file)).length,
    );
    expect(head.headers['accept-ranges']).toBe('bytes');
    await head.body.dump();
  });

  it('keeps played, favourite and position data in both dialects', async () => {
    const { token, userId } = await signIn();
    const episodes = await emby(
      'GET',
      `/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Episode&SortBy=ParentIndexNumber,IndexNumber`,
      token,
    );
    const [first, second] = episodes.body.Items as Item[];
    const favourite = await emby('POST', `/Users/${userId}/FavoriteItems/${first!.Id}`, token);
    expect(favourite.body).toMatchObject({ IsFavorite: true });
    const jellyfinHeaders = { authorization: `MediaBrowser Token="${token}"` };
    expect(
      (await call(env.playAgent, 'DELETE', `/UserFavoriteItems/${first!.Id}`, { headers: jellyfinHeaders }))
        .body,
    ).toMatchObject({ IsFavorite: false });
    expect((await emby('POST', `/Users/${userId}/PlayedItems/${first!.Id}`, token)).body).toMatchObject({
      Played: true,
    });
    const nextUp = await emby('GET', `/Shows/NextUp?UserId=${userId}`, token);
    expect((nextUp.body.Items as Item[]).map((item) => item.Id)).toContain(second!.Id);
    expect(
      (
        await call(env.playAgent, 'POST', `/UserItems/${second!.Id}/UserData`, {
          headers: jellyfinHeaders,
          body: { PlaybackPositionTicks: 5_000_000 },
        })
      ).body,
    ).toMatchObject({ PlaybackPositionTicks: 5_000_000 });
    const resume = await emby('GET', `/Users/${userId}/Items/Resume`, token);
    expect((resume.body.Items as Item[]).map((item) => item.Id)).toContain(second!.Id);
    expect(
      (await emby('POST', `/Users/${userId}/PlayedItems/${first!.Id}/Delete`, token)).body,
    ).toMatchObject({ Played: false });
    const seasons = await emby('GET', `/Shows/${String(first!.SeriesId)}/Seasons?UserId=${userId}`, token);
    expect((seasons.body.Items as Item[]).every((season) => season.Type === 'Season')).toBe(true);
    const latest = await emby('GET', `/Users/${userId}/Items/Latest?Limit=10`, token);
    expect(Array.isArray(latest.body)).toBe(true);
  });
});
