import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  PortalItem,
  PortalItemDetail,
  PortalItemsResponse,
  PortalLibrariesResponse,
} from '@svc/contracts';
import { installBackends } from '../../support/install-backends.js';
import {
  call,
  startPlaybackInstall,
  type Json,
  type PlaybackInstall,
} from '../../support/playback-install.js';

/**
 * The user portal's libraries and items through the whole install: a portal sign-in, the public entrance
 * and the gateway's rules, the media service, the storage node for artwork and the play-agent for the ids.
 */
describe.each(installBackends())('the portal libraries and items on $label', (backend) => {
  let env: PlaybackInstall;
  let viewer: { token: string; userId: string };
  let items: PortalItem[];

  /** A call through the entrance with the viewer's portal access token (or another token, or none). */
  const portal = <T = Json>(route: string, token: string | null = viewer.token, headers = {}) =>
    call<T>(env.entrance, 'GET', route, {
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    });
  const list = async (query = '') => {
    const answer = await portal<PortalItemsResponse>(`/api/media/me/items${query}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };
  const names = async (query = '') => (await list(query)).items.map((item) => item.name);
  const detail = async (id: string) => {
    const answer = await portal<PortalItemDetail>(`/api/media/me/items/${id}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };
  const itemNamed = (name: string) => {
    const found = items.find((item) => item.name === name);
    if (!found) throw new Error(`no item ${name}`);
    return found;
  };
  const fixtureFile = (mountPath: string) => path.join(env.fixtures.library, mountPath);

  beforeAll(async () => {
    env = await startPlaybackInstall(backend.env);
    await env.createUser('viewer', 'viewer-password-1');
    const login = await call(env.entrance, 'POST', '/api/auth/login', {
      body: { username: 'viewer', password: 'viewer-password-1', client: 'portal' },
    });
    expect(login.status, login.text).toBe(200);
    viewer = { token: String(login.body.accessToken), userId: String((login.body.user as Json).id) };
    items = (await list()).items;
  }, 240_000);

  afterAll(async () => {
    await env?.stop();
    await backend.cleanup();
  });

  it('needs a signed-in account: no token or a wrong one is refused, a console token is accepted', async () => {
    const movie = itemNamed('Heat');
    for (const route of [
      '/api/media/me/libraries',
      '/api/media/me/items',
      `/api/media/me/items/${movie.id}`,
      `/api/media/me/items/${movie.id}/images/poster`,
    ]) {
      const anonymous = await portal(route, null);
      expect(anonymous.status, route).toBe(401);
      expect(anonymous.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
      expect((await portal(route, 'svc_acc_not-a-token')).status, route).toBe(401);
    }
    const console = await call(env.entrance, 'GET', '/api/media/me/libraries', {
      headers: { 'x-admin-token': env.adminToken },
    });
    expect(console.status, console.text).toBe(200);
    // The portal token does not open the console's routes of the same data.
    expect((await portal(`/api/media/items/${movie.id}`)).status).toBe(401);
  });

  it("lists the libraries the play-agent's Views show, with counts and a poster item", async () => {
    const answer = await portal<PortalLibrariesResponse>('/api/media/me/libraries');
    expect(answer.status, answer.text).toBe(200);
    const { libraries } = answer.body;
    expect(libraries.map((library) => [library.id, library.name, library.type, library.itemCount])).toEqual([
      [env.libraries.movies, 'Movies', 'movies', env.fixtures.movies.length],
      [env.libraries.series, 'Shows', 'series', env.fixtures.series.length],
    ]);

    // The same set the signed-in user sees through the play-agent (which accepts the portal token).
    const views = await call(env.playAgent, 'GET', `/Users/${viewer.userId}/Views`, {
      headers: { 'x-emby-token': viewer.token },
    });
    expect(views.status, views.text).toBe(200);
    const viewIds = (views.body.Items as Json[]).map((view) => String(view.Id)).sort();
    expect(viewIds).toEqual(libraries.map((library) => library.id.replace(/-/g, '')).sort());

    // The poster item of each library has a poster the image route serves.
    for (const library of libraries) {
      expect(library.posterItemId, library.name).not.toBeNull();
      const item = items.find((candidate) => candidate.id === library.posterItemId);
      expect(item, library.name).toMatchObject({ libraryId: library.id, hasPoster: true });
      const image = await portal(`/api/media/me/items/${library.posterItemId}/images/poster`);
      expect(image.status).toBe(200);
      expect(image.headers['content-type']).toBe('image/jpeg');
    }
  });

  it('lists movies and series by name with the fields the portal shows', async () => {
    const answer = await list();
    expect(answer).toMatchObject({ total: 4, limit: 50, offset: 0 });
    expect(answer.items.map((item) => [item.name, item.type])).toEqual([
      ['Arrival', 'movie'],
      ['Heat', 'movie'],
      ['The Matrix', 'movie'],
      ['Show', 'series'],
    ]);
    const heat = itemNamed('Heat');
    const heatFixture = env.fixtures.movies.find((movie) => movie.title === 'Heat')!;
    expect(heat).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      libraryId: env.libraries.movies,
      name: 'Heat',
      type: 'movie',
      year: 1995,
      overview: heatFixture.nfo!.plot,
      hasPoster: true,
      runtime: expect.closeTo(heatFixture.durationSeconds, 0) as unknown,
      playbackItemId: heat.id.replace(/-/g, ''),
    });
    expect(itemNamed('The Matrix')).toMatchObject({ hasPoster: false, overview: null, year: 1999 });
    expect(itemNamed('Show')).toMatchObject({
      libraryId: env.libraries.series,
      year: 2020,
      hasPoster: true,
      runtime: null,
    });
    // Nothing of the storage layout reaches the portal.
    const text = (await portal('/api/media/me/items')).text;
    expect(text).not.toContain('/Movies');
    expect(text).not.toContain(env.install.context.settings.storageNodeId);
  });

  it('filters by library and type, searches without regard to case and by episode titles, and pages', async () => {
    expect(await names(`?libraryId=${env.libraries.series}`)).toEqual(['Show']);
    expect(await names(`?libraryId=${env.libraries.movies}&type=series`)).toEqual([]);
    expect(await names('?type=movie')).toEqual(['Arrival', 'Heat', 'The Matrix']);
    expect(await names('?type=series')).toEqual(['Show']);
    expect(await names('?search=hEaT')).toEqual(['Heat']);
    // The original title counts too ("The Show").
    expect(await names('?search=the%20show')).toEqual(['Show']);
    // An episode's title finds its series ("Pilot (from nfo)", "The Second").
    expect(await names('?search=pilot')).toEqual(['Show']);
    expect(await names('?search=second&type=movie')).toEqual([]);
    // LIKE wildcards are plain characters.
    expect(await names('?search=%25')).toEqual([]);
    expect(await names('?search=_')).toEqual([]);
    // Empty values, as a form sends them, mean no filter.
    expect(await names('?libraryId=&search=&type=')).toHaveLength(4);

    const first = await list('?limit=2');
    const second = await list('?limit=2&offset=2');
    expect(first).toMatchObject({ total: 4, limit: 2, offset: 0 });
    expect([...first.items, ...second.items].map((item) => item.name)).toEqual(
      items.map((item) => item.name),
    );
    expect(await list('?offset=10')).toEqual({ items: [], total: 4, limit: 50, offset: 10 });
    expect((await list('?limit=100')).items).toHaveLength(4);
  });

  it('validates the query, and answers 404 for a library that does not exist', async () => {
    for (const query of [
      '?limit=101',
      '?limit=0',
      '?limit=x',
      '?offset=-1',
      '?type=episode',
      '?libraryId=nope',
      '?unknown=1',
    ]) {
      const answer = await portal(`/api/media/me/items${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    }
    const unknown = await portal(`/api/media/me/items?libraryId=${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it("gives a movie's file: container, size, duration and streams, without paths", async () => {
    const arrival = itemNamed('Arrival');
    const fixture = env.fixtures.movies.find((movie) => movie.title === 'Arrival')!;
    const answer = await detail(arrival.id);
    expect(answer).toMatchObject({
      ...arrival,
      type: 'movie',
      seriesId: null,
      seriesName: null,
      seasonNumber: null,
      episodeNumber: null,
      imageTypes: ['poster'],
      seasons: [],
    });
    expect(answer.file).toMatchObject({
      container: 'mkv',
      size: statSync(fixtureFile(fixture.file)).size,
      subtitles: [{ language: 'en', format: 'srt', forced: false, default: false }],
    });
    expect(answer.file!.format).toMatch(/^matroska/);
    expect(answer.file!.durationSeconds).toBeCloseTo(fixture.durationSeconds, 0);
    expect(answer.file!.streams.filter((stream) => stream.type === 'video')).toHaveLength(1);
    expect(
      answer.file!.streams.filter((stream) => stream.type === 'audio').map((stream) => stream.language),
    ).toEqual(fixture.streams.audioLanguages);
    expect(JSON.stringify(answer)).not.toContain('Arrival (2016) [imdbid');

    const heat = await detail(itemNamed('Heat').id);
    expect(heat).toMatchObject({
      originalTitle: 'Heat',
      releaseDate: '1995-12-15',
      imageTypes: ['poster', 'fanart'],
    });
    expect(heat.file).toMatchObject({ container: 'mp4' });
  });

  it('gives a series with its seasons and episodes, a season with its episodes, an episode with its series', async () => {
    const show = itemNamed('Show');
    const fixture = env.fixtures.series[0]!;
    const answer = await detail(show.id);
    expect(answer).toMatchObject({ type: 'series', originalTitle: 'The Show', file: null, runtime: null });
    expect(answer.seasons.map((season) => [season.seasonNumber, season.episodes.length])).toEqual(
      fixture.seasons.map((season) => [season.seasonNumber, season.episodes.length]),
    );
    expect(answer.seasons.map((season) => season.hasPoster)).toEqual([false, true, false]);
    const episodes = answer.seasons.flatMap((season) => season.episodes);
    expect(episodes.map((episode) => [episode.seasonNumber, episode.episodeNumber, episode.name])).toEqual(
      fixture.seasons.flatMap((season) =>
        season.episodes.map((episode) => [episode.seasonNumber, episode.episodeNumber, episode.name]),
      ),
    );
    const pilot = episodes.find((episode) => episode.name === 'Pilot (from nfo)')!;
    expect(pilot).toMatchObject({ imageTypes: ['thumb'], overview: 'NFO plot of the pilot.' });
    expect(pilot.playbackItemId).toBe(pilot.id.replace(/-/g, ''));
    expect(pilot.runtime).toBeCloseTo(2, 0);
    expect(episodes.find((episode) => episode.name === 'Double')).toMatchObject({
      episodeNumber: 1,
      episodeNumberEnd: 2,
    });

    const seasonOne = answer.seasons.find((season) => season.seasonNumber === 1)!;
    const season = await detail(seasonOne.id);
    expect(season).toMatchObject({
      type: 'season',
      seriesId: show.id,
      seriesName: 'Show',
      seasonNumber: 1,
      file: null,
    });
    expect(season.seasons).toEqual([seasonOne]);

    const episode = await detail(pilot.id);
    expect(episode).toMatchObject({
      type: 'episode',
      seriesId: show.id,
      seriesName: 'Show',
      seasonNumber: 1,
      episodeNumber: 1,
      seasons: [],
      file: { container: 'mkv' },
    });
  });

  it('accepts the compact (playbackItemId) form of an id, and answers 404 for unknown ids', async () => {
    const heat = itemNamed('Heat');
    expect((await detail(heat.playbackItemId)).id).toBe(heat.id);
    for (const id of [randomUUID(), 'nope', env.libraries.movies]) {
      const answer = await portal(`/api/media/me/items/${id}`);
      expect(answer.status, id).toBe(404);
      expect(answer.body, id).toMatchObject({ error: { code: 'NOT_FOUND' } });
      expect((await portal(`/api/media/me/items/${id}/images/poster`)).status, id).toBe(404);
    }
  });

  it("answers artwork with the console route's bytes and headers, Range and HEAD included", async () => {
    const heat = itemNamed('Heat');
    const heatFixture = env.fixtures.movies.find((movie) => movie.title === 'Heat')!;
    const onDisk = readFileSync(fixtureFile(heatFixture.fanart!));
    const fetch = async (route: string, headers: Record<string, string>) => {
      const response = await request(`${env.entrance}${route}`, { headers });
      return {
        status: response.statusCode,
        headers: response.headers,
        body: Buffer.from(await response.body.arrayBuffer()),
      };
    };
    const same = [
      'content-type',
      'content-length',
      'cache-control',
      'etag',
      'last-modified',
      'accept-ranges',
    ];
    for (const range of [undefined, 'bytes=0-9']) {
      const extra: Record<string, string> = range ? { range } : {};
      const mine = await fetch(`/api/media/me/items/${heat.id}/images/fanart`, {
        authorization: `Bearer ${viewer.token}`,
        ...extra,
      });
      const admin = await fetch(`/api/media/items/${heat.id}/images/fanart`, {
        'x-admin-token': env.adminToken,
        ...extra,
      });
      expect(mine.status).toBe(range ? 206 : 200);
      expect(mine.body.equals(range ? onDisk.subarray(0, 10) : onDisk)).toBe(true);
      expect(mine.body.equals(admin.body)).toBe(true);
      for (const name of same) expect(mine.headers[name], name).toEqual(admin.headers[name]);
      expect(mine.headers['cache-control']).toBe('private, max-age=3600');
      if (range) expect(mine.headers['content-range']).toBe(`bytes 0-9/${onDisk.length}`);
    }
    const head = await request(`${env.entrance}/api/media/me/items/${heat.playbackItemId}/images/poster`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${viewer.token}` },
    });
    expect(head.statusCode).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(statSync(fixtureFile(heatFixture.poster!)).size);
    expect((await head.body.arrayBuffer()).byteLength).toBe(0);

    // No local poster, an image type that does not exist.
    expect((await portal(`/api/media/me/items/${itemNamed('The Matrix').id}/images/poster`)).status).toBe(
      404,
    );
    expect((await portal(`/api/media/me/items/${heat.id}/images/thumb`)).status).toBe(404);
    expect((await portal(`/api/media/me/items/${heat.id}/images/banner`)).status).toBe(400);
  });

  it("plays an item through the play-agent with its playbackItemId and the portal's token", async () => {
    const heat = itemNamed('Heat');
    const fixture = env.fixtures.movies.find((movie) => movie.title === 'Heat')!;
    const onDisk = readFileSync(fixtureFile(fixture.file));
    const item = await call(env.playAgent, 'GET', `/Users/${viewer.userId}/Items/${heat.playbackItemId}`, {
      headers: { 'x-emby-token': viewer.token },
    });
    expect(item.status, item.text).toBe(200);
    expect(item.body).toMatchObject({ Id: heat.playbackItemId, Name: 'Heat', Type: 'Movie' });

    const container = (await detail(heat.id)).file!.container;
    const stream = await request(
      `${env.playAgent}/Videos/${heat.playbackItemId}/stream.${container}?static=true&api_key=${viewer.token}`,
      { headers: { range: 'bytes=0-1023' } },
    );
    const bytes = Buffer.from(await stream.body.arrayBuffer());
    expect(stream.statusCode).toBe(206);
    expect(bytes.equals(onDisk.subarray(0, 1024))).toBe(true);
  });
});
