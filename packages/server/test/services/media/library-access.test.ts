import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PortalItemsResponse, PortalLibrariesResponse } from '@svc/contracts';
import { installBackends } from '../../support/install-backends.js';
import {
  call,
  startPlaybackInstall,
  type Json,
  type PlaybackInstall,
} from '../../support/playback-install.js';
import { waitFor } from '../../support/runtime.js';

const compact = (id: string) => id.replace(/-/g, '');
const TICKS_PER_SECOND = 10_000_000;

/**
 * Library access per user (docs/auth.md "Library access") through the whole install: the console's
 * routes, the play-agent's PROTO_A browse, artwork, PlaybackInfo, subtitles and streams, and the portal.
 * The viewer is limited to the series library (A); the movies library (B) must vanish everywhere.
 */
describe.each(installBackends())('library access per user on $label', (backend) => {
  let env: PlaybackInstall;
  /** The viewer's id as PROTO_A writes it, and as the console API takes it. */
  let viewerId: string;
  let viewerUuid: string;
  let token: string;
  let portalToken: string;
  const movie: Record<'heat' | 'matrix' | 'arrival', string> = { heat: '', matrix: '', arrival: '' };

  const emby = (method: string, route: string, body?: unknown) =>
    call(env.playAgent, method, route, { headers: { 'x-emby-token': token }, body });
  const portal = <T = Json>(route: string) =>
    call<T>(env.entrance, 'GET', route, { headers: { authorization: `Bearer ${portalToken}` } });
  const names = (answer: { body: Json }) => ((answer.body.Items ?? answer.body) as Json[]).map((i) => i.Name);
  const viewIds = async () =>
    ((await emby('GET', `/Users/${viewerId}/Views`)).body.Items as Json[]).map((view) => String(view.Id));
  const setAccess = async (access: Json) => {
    const answer = await env.admin('PUT', `/api/auth/admin/users/${viewerUuid}/library-access`, access);
    expect(answer.status, answer.text).toBe(200);
  };

  beforeAll(async () => {
    env = await startPlaybackInstall(backend.env);
    viewerUuid = await env.createUser('viewer', 'viewer-password-1');
    const signIn = await call(env.playAgent, 'POST', '/emby/Users/AuthenticateByName', {
      headers: { 'x-emby-authorization': 'MediaBrowser Client="Emby for Android", DeviceId="dev-libs-1"' },
      body: { Username: 'viewer', Pw: 'viewer-password-1' },
    });
    expect(signIn.status, signIn.text).toBe(200);
    token = String(signIn.body.AccessToken);
    viewerId = String((signIn.body.User as Json).Id);
    const login = await call(env.entrance, 'POST', '/api/auth/login', {
      body: { username: 'viewer', password: 'viewer-password-1', client: 'portal' },
    });
    expect(login.status, login.text).toBe(200);
    portalToken = String(login.body.accessToken);
    const movies = await emby(
      'GET',
      `/Users/${viewerId}/Items?ParentId=${compact(env.libraries.movies)}&Recursive=true`,
    );
    for (const item of movies.body.Items as Json[]) {
      const name = String(item.Name);
      if (name === 'Heat') movie.heat = String(item.Id);
      if (name === 'The Matrix') movie.matrix = String(item.Id);
      if (name === 'Arrival') movie.arrival = String(item.Id);
    }
    expect(
      Object.values(movie).every((id) => id.length > 0),
      JSON.stringify(names(movies)),
    ).toBe(true);
  }, 300_000);

  afterAll(async () => {
    await env?.stop();
    await backend.cleanup();
  });

  it('limits browsing, search, latest, resume, next up and the portal to the allowed libraries', async () => {
    // Before: every library, a resume point in B and a played episode in A.
    expect((await viewIds()).sort()).toEqual(
      [env.libraries.movies, env.libraries.series].map(compact).sort(),
    );
    const position = await emby('POST', `/Users/${viewerId}/Items/${movie.arrival}/UserData`, {
      PlaybackPositionTicks: 60 * TICKS_PER_SECOND,
    });
    expect(position.status, position.text).toBe(200);
    const episodes = await emby('GET', `/Users/${viewerId}/Items?IncludeItemTypes=Episode&Recursive=true`);
    const first = (episodes.body.Items as Json[]).find((episode) => episode.ParentIndexNumber === 1);
    expect(first, episodes.text).toBeDefined();
    expect((await emby('POST', `/Users/${viewerId}/PlayedItems/${String(first!.Id)}`)).status).toBe(200);
    expect(names(await emby('GET', `/Users/${viewerId}/Items/Resume`))).toContain('Arrival');
    // The byte route has looked the item up (and keeps it a while) before the access changes.
    const before = await request(
      `${env.playAgent}/Videos/${movie.matrix}/stream?static=true&api_key=${token}`,
    );
    expect(before.statusCode).toBeLessThan(300);
    await before.body.dump();

    await setAccess({ mode: 'ALLOW_LIST', libraryIds: [env.libraries.series] });
    // The media service and the play-agent reuse the access up to 5 s each.
    await waitFor(async () => ((await viewIds()).length === 1 ? true : undefined), 15_000, 200);
    expect(await viewIds()).toEqual([compact(env.libraries.series)]);

    // The user's policy says so, as Emby's does.
    const me = await emby('GET', '/Users/Me');
    expect(me.body.Policy).toMatchObject({
      EnableAllFolders: false,
      EnabledFolders: [compact(env.libraries.series)],
    });

    const root = await emby('GET', `/Users/${viewerId}/Items`);
    expect((root.body.Items as Json[]).map((view) => view.Id)).toEqual([compact(env.libraries.series)]);
    const everything = await emby('GET', `/Users/${viewerId}/Items?Recursive=true`);
    expect(everything.status).toBe(200);
    expect((everything.body.Items as Json[]).every((item) => item.Type !== 'Movie')).toBe(true);
    expect(everything.body.TotalRecordCount).toBe((everything.body.Items as Json[]).length);
    for (const query of [
      'SearchTerm=Heat&Recursive=true',
      `ParentId=${compact(env.libraries.movies)}&Recursive=true`,
      `Ids=${movie.heat},${movie.matrix}`,
      'IncludeItemTypes=Movie&Recursive=true',
    ]) {
      const answer = await emby('GET', `/Users/${viewerId}/Items?${query}`);
      expect(answer.status, query).toBe(200);
      expect(answer.body, query).toMatchObject({ Items: [], TotalRecordCount: 0 });
    }
    const latest = await emby('GET', `/Users/${viewerId}/Items/Latest`);
    expect(names(latest)).toEqual(['Show']);
    expect(
      await emby('GET', `/Users/${viewerId}/Items/Latest?ParentId=${compact(env.libraries.movies)}`),
    ).toMatchObject({ status: 200, body: [] });
    expect(names(await emby('GET', `/Users/${viewerId}/Items/Resume`))).not.toContain('Arrival');
    const nextUp = await emby('GET', `/Shows/NextUp?UserId=${viewerId}`);
    expect((nextUp.body.Items as Json[]).length).toBeGreaterThan(0);

    // The portal shows the same.
    const libraries = await portal<PortalLibrariesResponse>('/api/media/me/libraries');
    expect(libraries.body.libraries.map((library) => library.id)).toEqual([env.libraries.series]);
    const list = await portal<PortalItemsResponse>('/api/media/me/items');
    expect(list.body.items.map((item) => item.name)).toEqual(['Show']);
    expect(list.body.total).toBe(1);
    expect((await portal(`/api/media/me/items?search=Heat`)).body).toMatchObject({ items: [], total: 0 });
    expect((await portal(`/api/media/me/items?libraryId=${env.libraries.movies}`)).status).toBe(404);

    // A limited account sees nothing of B; an administrator still sees every library.
    const console = await call(env.entrance, 'GET', '/api/media/me/libraries', {
      headers: { 'x-admin-token': env.adminToken },
    });
    expect((console.body.libraries as Json[]).length).toBe(2);

    // Another library taken away empties next up too.
    await setAccess({ mode: 'ALLOW_LIST', libraryIds: [env.libraries.movies] });
    await waitFor(
      async () => ((await viewIds())[0] === compact(env.libraries.movies) ? true : undefined),
      15_000,
      200,
    );
    expect((await emby('GET', `/Shows/NextUp?UserId=${viewerId}`)).body).toMatchObject({ Items: [] });
    await setAccess({ mode: 'ALLOW_LIST', libraryIds: [env.libraries.series] });
    await waitFor(
      async () => ((await viewIds())[0] === compact(env.libraries.series) ? true : undefined),
      15_000,
    );
  }, 120_000);

  it('answers not found for an item of a hidden library, before any byte of it', async () => {
    const notFound = (answer: { status: number; body: Json }, what: string) => {
      expect(answer.status, what).toBe(404);
      expect((answer.body.error as Json | undefined)?.code, what).toBe('NOT_FOUND');
    };
    notFound(await emby('GET', `/Users/${viewerId}/Items/${movie.heat}`), 'item detail');
    notFound(await emby('GET', `/Items/${movie.heat}`), 'item detail (Jellyfin form)');
    notFound(await emby('POST', `/Items/${movie.matrix}/PlaybackInfo?UserId=${viewerId}`), 'PlaybackInfo');
    notFound(await emby('GET', `/Users/${viewerId}/Items/${movie.heat}/UserData`), 'user data');
    notFound(await emby('POST', `/Users/${viewerId}/FavoriteItems/${movie.heat}`), 'favourite');
    notFound(await emby('GET', `/Items/${movie.heat}/Images/Primary?api_key=${token}`), 'artwork');
    notFound(await portal(`/api/media/me/items/${movie.heat}`), 'portal detail');
    notFound(await portal(`/api/media/me/items/${movie.heat}/images/poster`), 'portal artwork');

    // Streams, downloads and subtitles: the answer is the error document, never media bytes.
    for (const path of [
      `/Videos/${movie.matrix}/stream?static=true`,
      `/Videos/${movie.matrix}/stream.mp4?static=true`,
      `/Items/${movie.matrix}/Download`,
      `/Videos/${movie.arrival}/${movie.arrival}/Subtitles/3/Stream.srt`,
    ]) {
      const separator = path.includes('?') ? '&' : '?';
      const answer = await request(`${env.playAgent}${path}${separator}api_key=${token}`, {
        headers: { range: 'bytes=0-' },
      });
      expect(answer.statusCode, path).toBe(404);
      expect(answer.headers['content-type'], path).toMatch(/^application\/json/);
      expect(answer.headers['content-range'], path).toBeUndefined();
      const body = (await answer.body.json()) as Json;
      expect((body.error as Json).code, path).toBe('NOT_FOUND');
    }

    // Artwork without a token stays open, as in Emby (players load it without one).
    const open = await request(`${env.playAgent}/Items/${movie.heat}/Images/Primary`);
    expect(open.statusCode).toBe(200);
    await open.body.dump();
  });

  it('applies a change of access to streams and the lists', async () => {
    await setAccess({ mode: 'ALL' });
    await waitFor(async () => ((await viewIds()).length === 2 ? true : undefined), 15_000, 200);
    const detail = await waitFor(async () => {
      const answer = await emby('GET', `/Users/${viewerId}/Items/${movie.heat}`);
      return answer.status === 200 ? answer : undefined;
    }, 15_000);
    expect(detail.body.Name).toBe('Heat');
    const stream = await waitFor(async () => {
      const answer = await request(
        `${env.playAgent}/Videos/${movie.matrix}/stream?static=true&api_key=${token}`,
      );
      if (answer.statusCode >= 300) {
        await answer.body.dump();
        return undefined;
      }
      return answer;
    }, 15_000);
    expect(stream.headers['content-type']).toMatch(/^video\//);
    await stream.body.dump();
    // The subtitle path refused above is the right one: it answers now.
    const subtitle = await request(
      `${env.playAgent}/Videos/${movie.arrival}/${movie.arrival}/Subtitles/3/Stream.srt?api_key=${token}`,
    );
    expect(subtitle.statusCode).toBe(200);
    expect(await subtitle.body.text()).toContain('-->');

    const user = await env.admin('GET', `/api/auth/admin/users/${viewerUuid}`);
    expect(user.body.libraryAccess).toEqual({ mode: 'ALL', libraryIds: [] });
    const audit = await env.admin('GET', '/api/auth/admin/audit-log?action=user.library-access');
    expect(audit.status, audit.text).toBe(200);
    const records = audit.body.items as Json[];
    expect(records.length).toBeGreaterThanOrEqual(4);
    expect(records[0]).toMatchObject({
      action: 'user.library-access',
      targetType: 'user',
      targetId: viewerUuid,
      details: { username: 'viewer', after: { mode: 'ALL', libraryIds: [] } },
    });
  });

  it('gives a new user the default library access of its creation time', async () => {
    const bad = await env.admin('PUT', '/api/auth/admin/library-access-policy', {
      mode: 'ALL',
      libraryIds: [env.libraries.series],
    });
    expect(bad.status).toBe(400);
    const saved = await env.admin('PUT', '/api/auth/admin/library-access-policy', {
      mode: 'ALLOW_LIST',
      libraryIds: [env.libraries.series],
    });
    expect(saved.status, saved.text).toBe(200);
    expect((await env.admin('GET', '/api/auth/admin/library-access-policy')).body).toEqual({
      mode: 'ALLOW_LIST',
      libraryIds: [env.libraries.series],
    });
    const newcomer = await env.createUser('newcomer', 'newcomer-password-1');
    const detail = await env.admin('GET', `/api/auth/admin/users/${newcomer}`);
    expect(detail.body.libraryAccess).toEqual({ mode: 'ALLOW_LIST', libraryIds: [env.libraries.series] });
    const login = await call(env.entrance, 'POST', '/api/auth/login', {
      body: { username: 'newcomer', password: 'newcomer-password-1', client: 'portal' },
    });
    const libraries = await call<PortalLibrariesResponse>(env.entrance, 'GET', '/api/media/me/libraries', {
      headers: { authorization: `Bearer ${String(login.body.accessToken)}` },
    });
    expect(libraries.body.libraries.map((library) => library.id)).toEqual([env.libraries.series]);
    // Existing users keep theirs.
    expect((await env.admin('GET', `/api/auth/admin/users/${viewerUuid}`)).body.libraryAccess).toEqual({
      mode: 'ALL',
      libraryIds: [],
    });
  });
});
