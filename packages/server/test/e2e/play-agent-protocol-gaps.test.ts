import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installBackends } from '../support/install-backends.js';
import { makeVideo } from '../support/media-fixtures.js';
import { call, startPlaybackInstall, type Json, type PlaybackInstall } from '../support/playback-install.js';

const run = promisify(execFile);
const EMBY_AUTH = (token: string) =>
  `MediaBrowser Client="Emby for Android", Device="Pixel", DeviceId="dev-gaps-1", Version="3.4.20", Token="${token}"`;
const compact = (id: string) => id.replace(/-/g, '');
const CHAPTERS = [
  { startSeconds: 0, title: 'Opening' },
  { startSeconds: 2, title: 'Middle' },
  { startSeconds: 4, title: 'Ending' },
];

/**
 * Protocol gaps of PROTO_A found with real players: bodiless requests that say JSON, Emby's UserData
 * semantics, embedded subtitles, chapters and play access, and the protocols this node does not serve.
 */
describe.each(installBackends())('PROTO_A protocol details on $label', (backend) => {
  let env: PlaybackInstall;
  let mediaRoot: string;
  let token: string;
  let userId: string;
  let movieId: string;
  let videoFile: string;

  const emby = (method: string, route: string, body?: unknown) =>
    call(env.playAgent, method, route, {
      headers: { 'x-emby-authorization': EMBY_AUTH(token) },
      ...(body === undefined ? {} : { body }),
    });

  /** What Android and web players send: JSON content type, zero-length body. */
  const bodiless = async (method: 'POST' | 'DELETE', route: string, headers: Record<string, string> = {}) => {
    const response = await request(`${env.playAgent}${route}`, {
      method,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-length': '0',
        'x-emby-authorization': EMBY_AUTH(token),
        ...headers,
      },
    });
    return { status: response.statusCode, text: await response.body.text() };
  };

  beforeAll(async () => {
    env = await startPlaybackInstall(backend.env);
    await env.createUser('gaps', 'gaps-password-1');
    mediaRoot = await mkdtemp(path.join(os.tmpdir(), 'svc-proto-gaps-'));
    videoFile = path.join(mediaRoot, 'Chaptered (2021)', 'Chaptered (2021).mkv');
    await makeVideo(videoFile, {
      seconds: 6,
      languages: ['eng'],
      format: 'mkv',
      chapters: CHAPTERS,
      embeddedSubtitleLanguage: 'fre',
    });
    const libraryId = await env.addLocalLibrary('Chaptered', 'movies', mediaRoot);
    const signIn = await call(env.playAgent, 'POST', '/emby/Users/AuthenticateByName', {
      headers: { 'x-emby-authorization': 'MediaBrowser Client="Emby for Android", DeviceId="dev-gaps-1"' },
      body: { Username: 'gaps', Pw: 'gaps-password-1' },
    });
    expect(signIn.status, signIn.text).toBe(200);
    token = String(signIn.body.AccessToken);
    userId = String((signIn.body.User as Json).Id);
    const items = await emby('GET', `/Users/${userId}/Items?ParentId=${compact(libraryId)}&Recursive=true`);
    expect(items.status, items.text).toBe(200);
    movieId = String(((items.body.Items as Json[])[0] ?? {}).Id);
  }, 300_000);

  afterAll(async () => {
    await env?.stop();
    await backend.cleanup();
    if (mediaRoot) await rm(mediaRoot, { recursive: true, force: true });
  });

  it('accepts bodiless POST and DELETE requests that carry Content-Type: application/json', async () => {
    const routes: ['POST' | 'DELETE', string][] = [
      ['POST', `/emby/Users/${userId}/PlayedItems/${movieId}`],
      ['DELETE', `/emby/Users/${userId}/PlayedItems/${movieId}`],
      ['POST', `/UserPlayedItems/${movieId}`],
      ['POST', `/emby/Users/${userId}/FavoriteItems/${movieId}`],
      ['DELETE', `/emby/Users/${userId}/FavoriteItems/${movieId}`],
      ['POST', '/emby/Sessions/Capabilities/Full?PlayableMediaTypes=Video&SupportsMediaControl=false'],
      ['POST', '/emby/Sessions/Playing/Ping?PlaySessionId=gaps-session'],
      ['POST', '/emby/System/Ping'],
      ['POST', `/emby/Items/${movieId}/PlaybackInfo?UserId=${userId}`],
    ];
    for (const [method, route] of routes) {
      const answer = await bodiless(method, route);
      expect(answer.status, `${method} ${route}: ${answer.text}`).toBeLessThan(300);
    }
    const info = await bodiless('POST', `/emby/Items/${movieId}/PlaybackInfo?UserId=${userId}`);
    expect((JSON.parse(info.text) as Json).MediaSources).toHaveLength(1);
    // Sign-out last, with a token of its own: the token stops working.
    const second = await call(env.playAgent, 'POST', '/emby/Users/AuthenticateByName', {
      headers: { 'x-emby-authorization': 'MediaBrowser Client="Emby for Android", DeviceId="dev-gaps-2"' },
      body: { Username: 'gaps', Pw: 'gaps-password-1' },
    });
    const other = String(second.body.AccessToken);
    const logout = await bodiless('POST', '/emby/Sessions/Logout', {
      'x-emby-authorization': EMBY_AUTH(other),
    });
    expect(logout.status, logout.text).toBe(204);
    const after = await call(env.playAgent, 'GET', '/emby/Users/Me', { headers: { 'x-emby-token': other } });
    expect(after.status).toBe(401);
    // A body that is there but not JSON is still refused.
    const broken = await request(`${env.playAgent}/emby/Sessions/Capabilities/Full`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-emby-authorization': EMBY_AUTH(token) },
      body: '{"PlayableMediaTypes":',
    });
    expect(broken.statusCode).toBe(400);
    await broken.body.dump();
  });

  it('changes only the UserData fields a client sends, as Emby does', async () => {
    const route = `/emby/Users/${userId}/Items/${movieId}/UserData`;
    const read = async () => {
      const answer = await emby('GET', route);
      expect(answer.status, answer.text).toBe(200);
      return answer.body;
    };
    const save = async (body: Json) => {
      const answer = await emby('POST', route, body);
      expect(answer.status, answer.text).toBe(200);
    };

    // Earlier tests may have counted plays: Played alone never changes the count.
    const plays = Number((await read()).PlayCount);
    await save({ PlaybackPositionTicks: 250_000_000, Played: false });
    expect(await read()).toMatchObject({
      PlaybackPositionTicks: 250_000_000,
      Played: false,
      PlayCount: plays,
    });

    await save({ Played: true });
    expect(await read()).toMatchObject({
      PlaybackPositionTicks: 250_000_000,
      Played: true,
      PlayCount: plays,
    });

    await save({ PlayCount: 3, LastPlayedDate: '2024-05-01T10:00:00.000Z' });
    const counted = await read();
    expect(counted).toMatchObject({ PlayCount: 3, Played: true, PlaybackPositionTicks: 250_000_000 });
    expect(new Date(String(counted.LastPlayedDate)).toISOString()).toBe('2024-05-01T10:00:00.000Z');

    await save({ IsFavorite: true, Rating: 7, Likes: true });
    expect(await read()).toMatchObject({
      IsFavorite: true,
      PlayCount: 3,
      Played: true,
      PlaybackPositionTicks: 250_000_000,
    });

    await save({ Played: false, PlaybackPositionTicks: 0, LastPlayedDate: null });
    const cleared = await read();
    expect(cleared).toMatchObject({
      Played: false,
      PlaybackPositionTicks: 0,
      PlayCount: 3,
      IsFavorite: true,
    });
    expect(cleared.LastPlayedDate).toBeUndefined();

    const refused = await emby('POST', route, { PlayCount: 'three' });
    expect(refused.status).toBe(400);
    expect((refused.body.error as Json).message).toMatch(/PlayCount/);

    // Marking played through PlayedItems is Emby's MarkPlayed: a play counted and the position reset.
    const marked = await emby('POST', `/emby/Users/${userId}/PlayedItems/${movieId}`);
    expect(marked.body).toMatchObject({ Played: true, PlaybackPositionTicks: 0 });
  });

  it('describes embedded subtitles as Embed, chapters from ffprobe and full play access', async () => {
    const probed = await run('ffprobe', [
      '-v',
      'error',
      '-print_format',
      'json',
      '-show_chapters',
      videoFile,
    ]);
    const fileChapters = (JSON.parse(probed.stdout) as { chapters: Json[] }).chapters;
    expect(fileChapters).toHaveLength(CHAPTERS.length);

    const detail = await emby('GET', `/emby/Users/${userId}/Items/${movieId}`);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.PlayAccess).toBe('Full');
    expect(detail.body.Chapters).toEqual(
      CHAPTERS.map((chapter, index) => ({
        StartPositionTicks: chapter.startSeconds * 10_000_000,
        Name: chapter.title,
        MarkerType: 'Chapter',
        ChapterIndex: index,
      })),
    );
    const streams = (detail.body.MediaStreams ?? []) as Json[];
    const subtitle = streams.find((stream) => stream.Type === 'Subtitle');
    expect(subtitle).toMatchObject({ IsExternal: false, DeliveryMethod: 'Embed', Language: 'fre' });

    // Lists carry chapters only when asked for, as in Emby.
    const listed = await emby('GET', `/emby/Users/${userId}/Items?Ids=${movieId}&Fields=Chapters`);
    expect(((listed.body.Items as Json[])[0] ?? {}).Chapters).toHaveLength(CHAPTERS.length);
    const plain = await emby('GET', `/emby/Users/${userId}/Items?Ids=${movieId}`);
    expect((plain.body.Items as Json[])[0]).not.toHaveProperty('Chapters');

    const info = await emby('POST', `/emby/Items/${movieId}/PlaybackInfo?UserId=${userId}`, {});
    const source = (info.body.MediaSources as Json[])[0] ?? {};
    expect((source.MediaStreams as Json[]).find((stream) => stream.Type === 'Subtitle')).toMatchObject({
      DeliveryMethod: 'Embed',
    });
  });

  it('reads query and body names in any letter case and refuses values of the wrong type', async () => {
    // Names as real clients spell them: Api_Key, userid, RECURSIVE, parentid, limit.
    const items = await call(
      env.playAgent,
      'GET',
      `/emby/Items?Api_Key=${token}&userid=${userId}&RECURSIVE=true&includeitemtypes=Movie&limit=1`,
    );
    expect(items.status, items.text).toBe(200);
    expect(items.body.Items as Json[]).toHaveLength(1);
    expect(Number(items.body.TotalRecordCount)).toBeGreaterThanOrEqual(1);
    expect((items.body.Items as Json[])[0]!.Type).toBe('Movie');
    const latest = await call(
      env.playAgent,
      'GET',
      `/Items/Latest?API_KEY=${token}&UserID=${userId}&LIMIT=5`,
    );
    expect(latest.status, latest.text).toBe(200);

    const wrong = await emby('GET', `/Users/${userId}/Items?Limit=ten`);
    expect(wrong.status).toBe(400);
    expect((wrong.body.error as Json).code).toBe('VALIDATION_FAILED');
    expect((wrong.body.error as Json).message).toMatch(/Limit/);
    // The token is checked before the query: no token is 401, whatever the query.
    expect((await call(env.playAgent, 'GET', `/Users/${userId}/Items?Limit=ten`)).status).toBe(401);

    const progress = await emby('POST', '/Sessions/Playing/Progress', {
      itemId: movieId,
      positionTicks: 20_000_000,
      isPaused: true,
      playSessionId: 'gaps-mixed-case',
    });
    expect(progress.status, progress.text).toBe(204);
    const badReport = await emby('POST', '/Sessions/Playing/Progress', { ItemId: movieId, IsPaused: 'no' });
    expect(badReport.status).toBe(400);
    expect((badReport.body.error as Json).code).toBe('VALIDATION_FAILED');

    const signIn = await call(env.playAgent, 'POST', '/Users/AuthenticateByName', {
      headers: { 'x-emby-authorization': 'MediaBrowser Client="Emby for Android", DeviceId="dev-gaps-3"' },
      body: { username: 'gaps', pw: 'gaps-password-1' },
    });
    expect(signIn.status, signIn.text).toBe(200);
  });

  it('answers 503 PROTOCOL_NOT_SUPPORTED for the protocols this node does not serve', async () => {
    for (const [method, route] of [
      ['GET', '/PROTO_B/System/Info/Public'],
      ['POST', '/proto_b/Users/AuthenticateByName'],
      ['DELETE', '/PROTO_C/Sessions/1'],
      ['GET', '/proto_c/rest/ping.view?u=gaps'],
    ] as const) {
      const answer = await call(env.playAgent, method, route);
      expect(answer.status, `${method} ${route}`).toBe(503);
      expect((answer.body.error as Json).code).toBe('PROTOCOL_NOT_SUPPORTED');
    }
    // PROTO_A itself and unknown paths are unchanged.
    expect((await call(env.playAgent, 'GET', '/emby/System/Info/Public')).status).toBe(200);
    expect((await call(env.playAgent, 'GET', '/no/such/path')).status).toBe(404);
  });
});
