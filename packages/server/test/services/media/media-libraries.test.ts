import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Library,
  LibraryDetail,
  LibraryScanResponse,
  ListItemsResponse,
  ListLibrariesResponse,
  MediaItemDetail,
  MediaItemSummary,
  MetadataProviderSettings,
  ScanStatus,
  Upload,
} from '@svc/contracts';
import {
  toEventPayload,
  type MediaEventPayload,
} from '../../../src/services/media/events/media-events.repository.js';
import { installBackends } from '../../support/install-backends.js';
import type { FixtureEpisode, FixtureMovie } from '../../support/media-fixtures.js';
import { SETTINGS_ONLY, startMediaTestEnv, type MediaTestEnv } from './support/media-env.js';

interface ErrorAnswer {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

/** Asymmetric matchers typed as the values they stand for. */
const anyString = expect.any(String) as unknown as string;
const isoTime = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) as unknown as string;

const finished = (scan: ScanStatus) =>
  expect(scan).toMatchObject({ state: 'succeeded', phase: 'done', error: null });

describe.each(installBackends())('media libraries, scans and items on $label', (backend) => {
  let env: MediaTestEnv;
  let movies: Library;
  let series: Library;
  const insideMount = (file: string) => path.join(env.mountRoot, ...file.split('/'));

  const allItems = async (libraryId: string, query = ''): Promise<MediaItemSummary[]> => {
    const answer = await env.api<ListItemsResponse>(
      'GET',
      `/api/media/libraries/${libraryId}/items?pageSize=200${query}`,
    );
    expect(answer.status).toBe(200);
    return answer.body.items;
  };
  const detail = async (id: string) => (await env.api<MediaItemDetail>('GET', `/api/media/items/${id}`)).body;
  const scan = async (libraryId: string, mode: 'full' | 'incremental') =>
    env.waitForScan(libraryId, (await env.startScan(libraryId, mode)).id);
  const undelivered = async (): Promise<MediaEventPayload[]> =>
    (await env.parts.events.listUndelivered(1000)).map(toEventPayload);

  beforeAll(async () => {
    env = await startMediaTestEnv(backend);
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('refuses bad library input with 4xx and the error body, writing nothing', async () => {
    const source = env.source('/Movies');
    const bad: [unknown, string | undefined][] = [
      [{}, undefined],
      [{ name: 'Films', type: 'music', sources: [source] }, '/type'],
      [{ name: '', type: 'movies', sources: [source] }, '/name'],
      [{ name: 'Films', type: 'movies', sources: [] }, '/sources'],
      [{ name: 'Films', type: 'movies', sources: [{ ...source, path: '/Movies/../..' }] }, '/sources/0/path'],
      [{ name: 'Films', type: 'movies', sources: [{ ...source, nodeId: 'storage-1' }] }, '/sources/0/nodeId'],
      [{ name: 'Films', type: 'movies', sources: [source, { ...source, path: '/Movies/' }] }, '/sources/1'],
      [{ name: 'Films', type: 'movies', sources: [source], extra: true }, undefined],
      [
        { name: 'Films', type: 'movies', sources: [{ ...source, nodeId: 'node-nowhere' }] },
        '/sources/0/nodeId',
      ],
      [
        { name: 'Films', type: 'movies', sources: [{ ...source, mountId: 'no-such-mount' }] },
        '/sources/0/mountId',
      ],
    ];
    for (const [body, field] of bad) {
      const answer = await env.api<ErrorAnswer>('POST', '/api/media/libraries', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_FAILED');
      if (field)
        expect(
          answer.body.error.details?.map((d) => d.path),
          JSON.stringify(body),
        ).toContain(field);
    }
    const notJson = await env.api<ErrorAnswer>('POST', '/api/media/libraries', {
      headers: { 'content-type': 'application/xml' },
      body: '<library/>',
    });
    expect(notJson.status).toBe(415);
    expect(notJson.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const list = await env.api<ListLibrariesResponse>('GET', '/api/media/libraries');
    expect(list.body.libraries).toEqual([]);
  });

  it('asks for the library permission, the identity and the service token', async () => {
    const forbidden = await env.api<ErrorAnswer>('GET', '/api/media/libraries', { identity: SETTINGS_ONLY });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    const anonymous = await env.api<ErrorAnswer>('GET', '/api/media/libraries', { identity: null });
    expect(anonymous.status).toBe(401);
    const direct = await env.api<ErrorAnswer>('GET', '/api/media/libraries', { serviceToken: false });
    expect(direct.status).toBe(401);
    expect(direct.body.error.code).toBe('UNAUTHORIZED');
  });

  it('creates, lists, renames and deletes libraries', async () => {
    movies = await env.createLibrary('  Films ', 'movies', 'Movies/');
    expect(movies).toMatchObject({
      name: 'Films',
      type: 'movies',
      sources: [env.source('/Movies')],
      counts: { movies: 0, series: 0, seasons: 0, episodes: 0 },
      lastScan: null,
    });
    series = await env.createLibrary('Series', 'series', '/TV');

    const taken = await env.api<ErrorAnswer>('POST', '/api/media/libraries', {
      body: { name: 'films', type: 'mixed', sources: [env.source('/')] },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('LIBRARY_NAME_TAKEN');

    const detailAnswer = await env.api<LibraryDetail>('GET', `/api/media/libraries/${movies.id}`);
    expect(detailAnswer.body.probeTools).toEqual([
      { nodeId: env.storage.nodeId, reachable: true, available: true, version: anyString },
    ]);

    const temp = await env.createLibrary('Temp', 'mixed', '/');
    const renamed = await env.api<Library>('PATCH', `/api/media/libraries/${temp.id}`, {
      body: { name: 'Temp 2' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Temp 2');
    for (const body of [{}, { type: 'series' }, { name: 'Series' }]) {
      const refused = await env.api<ErrorAnswer>('PATCH', `/api/media/libraries/${temp.id}`, { body });
      expect(refused.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
    }
    expect((await env.api('GET', `/api/media/libraries/${temp.id}`)).body).toMatchObject({
      name: 'Temp 2',
      type: 'mixed',
    });
    expect((await env.api('DELETE', `/api/media/libraries/${temp.id}`)).status).toBe(204);
    expect((await env.api<ErrorAnswer>('GET', `/api/media/libraries/${temp.id}`)).status).toBe(404);
    expect((await env.api<ErrorAnswer>('DELETE', `/api/media/libraries/${temp.id}`)).status).toBe(404);
    expect((await env.api<ErrorAnswer>('GET', '/api/media/libraries/not-a-uuid')).status).toBe(400);

    const list = await env.api<ListLibrariesResponse>('GET', '/api/media/libraries');
    expect(list.body.libraries.map((library) => library.name)).toEqual(['Films', 'Series']);
  });

  it('refuses bad scan requests without queueing anything', async () => {
    for (const body of [{}, { mode: 'quick' }, { mode: 'full', extra: 1 }]) {
      const answer = await env.api<ErrorAnswer>('POST', `/api/media/libraries/${movies.id}/scan`, { body });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_FAILED');
    }
    const missing = await env.api<ErrorAnswer>(
      'POST',
      '/api/media/libraries/00000000-0000-4000-8000-00000000dead/scan',
      {
        body: { mode: 'full' },
      },
    );
    expect(missing.status).toBe(404);
    const state = await env.api<LibraryScanResponse>('GET', `/api/media/libraries/${movies.id}/scan`);
    expect(state.body).toEqual({ scan: null, pendingTasks: 0 });
  });

  it('scans the movies: titles, years, nfo over provider, provider without nfo, artwork, probe, subtitles', async () => {
    env.tmdb.throttle(1, 1); // the first provider call meets a 429 with Retry-After
    const [first, second] = await Promise.all([
      env.api<ScanStatus>('POST', `/api/media/libraries/${movies.id}/scan`, { body: { mode: 'full' } }),
      env.api<ErrorAnswer>('POST', `/api/media/libraries/${movies.id}/scan`, {
        body: { mode: 'incremental' },
      }),
    ]);
    const [accepted, refused] = first.status === 202 ? [first, second] : [second, first];
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ libraryId: movies.id, trigger: 'manual', scope: null });
    expect(refused.status).toBe(409);
    expect((refused.body as ErrorAnswer).error.code).toBe('SCAN_IN_PROGRESS');

    const done = await env.waitForScan(movies.id, (accepted.body as ScanStatus).id);
    finished(done);
    expect(done).toMatchObject({
      filesTotal: env.fixtures.movies.length,
      filesSeen: env.fixtures.movies.length,
      filesSkipped: 0,
      itemsAdded: env.fixtures.movies.length,
      itemsRemoved: 0,
      probeTools: [{ nodeId: env.storage.nodeId, reachable: true, available: true, version: anyString }],
    });

    const items = await allItems(movies.id);
    expect(items.map((item) => [item.kind, item.title, item.year]).sort()).toEqual(
      env.fixtures.movies.map((movie) => ['movie', movie.title, movie.year]).sort(),
    );
    for (const ignored of env.fixtures.ignored) {
      expect(
        items.some((item) => item.title.includes('trailer') || item.title.includes('sample')),
        ignored,
      ).toBe(false);
    }

    const byTitle = async (title: string) => detail(items.find((item) => item.title === title)!.id);
    const check = async (movie: FixtureMovie) => {
      const item = await byTitle(movie.title);
      expect(item.file).toMatchObject({ nodeId: env.storage.nodeId, mountId: env.mountId, path: movie.file });
      expect(item.mediaInfo?.container.startsWith(movie.container)).toBe(true);
      expect(item.mediaInfo?.durationSeconds).toBeCloseTo(movie.durationSeconds, 0);
      const streams = item.mediaInfo!.streams;
      expect(streams.filter((s) => s.type === 'video')).toHaveLength(movie.streams.video);
      expect(streams.filter((s) => s.type === 'audio').map((s) => s.language)).toEqual(
        movie.streams.audioLanguages,
      );
      expect(streams.filter((s) => s.type === 'subtitle')).toHaveLength(movie.streams.subtitle);
      expect(item.subtitles.map((s) => ({ path: s.path, language: s.language }))).toEqual(movie.subtitles);
      expect(item.images.poster?.source).toBe(movie.poster ? 'local' : 'provider');
      expect(item.images.fanart?.source).toBe(movie.fanart ? 'local' : undefined);
      return item;
    };

    // The .nfo wins over the provider, which was asked all the same (its poster path is kept).
    const heat = await check(env.fixtures.movies.find((movie) => movie.title === 'Heat')!);
    const heatNfo = env.fixtures.movies.find((movie) => movie.title === 'Heat')!.nfo!;
    expect(heat).toMatchObject({
      originalTitle: heatNfo.originalTitle,
      releaseDate: heatNfo.releaseDate,
      overview: heatNfo.plot,
      tmdbId: heatNfo.tmdbId,
      imdbId: heatNfo.imdbId,
    });
    expect(env.tmdb.requests.some((line) => line.startsWith('/3/movie/949'))).toBe(true);

    // No .nfo: the provider's answer, found by title and year.
    const matrix = await check(env.fixtures.movies.find((movie) => movie.title === 'The Matrix')!);
    expect(matrix).toMatchObject({
      originalTitle: 'The Matrix',
      releaseDate: '1999-03-31',
      overview: 'Provider overview of The Matrix.',
      tmdbId: '603',
      imdbId: 'tt0133093',
      images: { poster: { source: 'provider', url: 'https://image.tmdb.org/t/p/original/matrixPoster.jpg' } },
    });

    // The [imdbid-…] tag found it at the provider.
    const arrival = await check(env.fixtures.movies.find((movie) => movie.title === 'Arrival')!);
    expect(arrival).toMatchObject({
      tmdbId: '329865',
      imdbId: 'tt2543164',
      overview: 'Provider overview of Arrival.',
    });

    const library = await env.api<Library>('GET', `/api/media/libraries/${movies.id}`);
    expect(library.body.counts).toEqual({ movies: 3, series: 0, seasons: 0, episodes: 0 });
    expect(library.body.lastScan).toMatchObject({ id: done.id, state: 'succeeded' });
  });

  it('serves local artwork from the storage node, with ranges', async () => {
    const heat = (await allItems(movies.id)).find((item) => item.title === 'Heat')!;
    expect(heat.images.poster).toEqual({ url: `/api/media/items/${heat.id}/images/poster`, source: 'local' });
    const poster = await env.api<Buffer>('GET', heat.images.poster!.url);
    expect(poster.status).toBe(200);
    expect(poster.headers['content-type']).toBe('image/jpeg');
    const movie = env.fixtures.movies.find((m) => m.title === 'Heat')!;
    expect(poster.raw.equals(await readFile(insideMount(movie.poster!)))).toBe(true);
    const part = await env.api<Buffer>('GET', heat.images.poster!.url, { headers: { range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect(part.raw.length).toBe(10);
    expect(part.headers['content-range']).toMatch(/^bytes 0-9\/\d+$/);

    const matrix = (await allItems(movies.id)).find((item) => item.title === 'The Matrix')!;
    const none = await env.api<ErrorAnswer>('GET', `/api/media/items/${matrix.id}/images/fanart`);
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('NOT_FOUND');
    expect((await env.api<ErrorAnswer>('GET', `/api/media/items/${matrix.id}/images/banner`)).status).toBe(
      400,
    );
    expect(
      (await env.api<ErrorAnswer>('GET', '/api/media/items/00000000-0000-4000-8000-00000000dead')).status,
    ).toBe(404);
    expect((await env.api<ErrorAnswer>('GET', '/api/media/items/nope')).status).toBe(400);
  });

  it('scans the series: seasons, specials, multi-episode files, episode nfo, artwork and probe', async () => {
    const done = await scan(series.id, 'full');
    finished(done);
    const show = env.fixtures.series[0]!;
    const episodes = show.seasons.flatMap((season) => season.episodes);
    expect(done).toMatchObject({
      filesTotal: episodes.length,
      itemsAdded: 1 + show.seasons.length + episodes.length,
    });

    const top = await allItems(series.id);
    expect(top).toHaveLength(1);
    const seriesItem = await detail(top[0]!.id);
    expect(seriesItem).toMatchObject({
      kind: 'series',
      title: show.nfo.title,
      originalTitle: show.nfo.originalTitle,
      year: show.year,
      releaseDate: show.nfo.releaseDate,
      overview: show.nfo.plot,
      tmdbId: show.nfo.tmdbId,
      imdbId: show.nfo.imdbId,
      path: show.folder,
      images: { poster: { source: 'local' }, fanart: { source: 'local' } },
    });
    expect(seriesItem.children.map((season) => [season.seasonNumber, season.title])).toEqual(
      show.seasons.map((season) => [
        season.seasonNumber,
        season.seasonNumber === 0 ? 'Specials' : `Season ${season.seasonNumber}`,
      ]),
    );
    const seasonOne = seriesItem.children.find((season) => season.seasonNumber === 1)!;
    expect(seasonOne.images.poster?.source).toBe('local');
    // The breadcrumb of a season names its series; an episode's names its series and season.
    const seriesCrumb = { id: seriesItem.id, kind: 'series', title: show.nfo.title };
    expect(seriesItem.ancestors).toEqual([]);
    const seasonDetail = await detail(seasonOne.id);
    expect(seasonDetail.ancestors).toEqual([seriesCrumb]);
    const firstEpisode = await detail(seasonDetail.children[0]!.id);
    expect(firstEpisode.ancestors).toEqual([
      seriesCrumb,
      { id: seasonOne.id, kind: 'season', title: seasonOne.title },
    ]);

    const listed = await allItems(series.id, '&kind=episode');
    expect(listed.map((e) => [e.seasonNumber, e.episodeNumber, e.episodeNumberEnd, e.title])).toEqual(
      episodes.map((e) => [e.seasonNumber, e.episodeNumber, e.episodeNumberEnd, e.name]),
    );
    const checkEpisode = async (fixture: FixtureEpisode) => {
      const item = await detail(
        listed.find(
          (e) => e.seasonNumber === fixture.seasonNumber && e.episodeNumber === fixture.episodeNumber,
        )!.id,
      );
      expect(item.seriesId).toBe(seriesItem.id);
      expect(item.file?.path).toBe(fixture.file);
      expect(item.mediaInfo?.durationSeconds).toBeCloseTo(fixture.durationSeconds, 0);
      expect(item.mediaInfo?.streams.filter((s) => s.type === 'audio').map((s) => s.language)).toEqual(
        fixture.streams.audioLanguages,
      );
      expect(item.images.thumb?.source).toBe(fixture.thumb ? 'local' : undefined);
      if (fixture.nfo)
        expect(item).toMatchObject({ overview: fixture.nfo.plot, releaseDate: fixture.nfo.releaseDate });
    };
    for (const episode of episodes) await checkEpisode(episode);

    const children = await env.api<ListItemsResponse>(
      'GET',
      `/api/media/libraries/${series.id}/items?parentId=${seasonOne.id}`,
    );
    expect(children.body.items.map((e) => e.episodeNumber)).toEqual([1, 2]);
    const library = await env.api<Library>('GET', `/api/media/libraries/${series.id}`);
    expect(library.body.counts).toEqual({
      movies: 0,
      series: 1,
      seasons: show.seasons.length,
      episodes: episodes.length,
    });
  });

  it('pages, searches and sorts items; bad queries are refused', async () => {
    const page = await env.api<ListItemsResponse>(
      'GET',
      `/api/media/libraries/${movies.id}/items?pageSize=2&page=2&sort=year&order=desc`,
    );
    expect(page.body).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(page.body.items.map((item) => item.title)).toEqual(['Heat']);
    const sorted = await env.api<ListItemsResponse>(
      'GET',
      `/api/media/libraries/${movies.id}/items?sort=year&order=desc`,
    );
    expect(sorted.body.items.map((item) => item.year)).toEqual([2016, 1999, 1995]);
    const search = await env.api<ListItemsResponse>(
      'GET',
      `/api/media/libraries/${movies.id}/items?search=MATRIX`,
    );
    expect(search.body.items.map((item) => item.title)).toEqual(['The Matrix']);
    const wildcard = await env.api<ListItemsResponse>(
      'GET',
      `/api/media/libraries/${movies.id}/items?search=%25`,
    );
    expect(wildcard.body.total).toBe(0);
    for (const query of ['pageSize=1000', 'page=0', 'sort=rating', 'kind=album', 'parentId=x', 'unknown=1']) {
      const refused = await env.api<ErrorAnswer>('GET', `/api/media/libraries/${movies.id}/items?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect(
      (await env.api('GET', '/api/media/libraries/00000000-0000-4000-8000-00000000dead/items')).status,
    ).toBe(404);
  });

  it('records a media event for every new movie and episode, with the template fields filled', async () => {
    const events = await undelivered();
    const movieEvents = events.filter((event) => event.media.type === 'movie');
    expect(movieEvents).toHaveLength(3);
    const heatItem = (await allItems(movies.id)).find((item) => item.title === 'Heat')!;
    const heat = movieEvents.find((event) => event.media.title === 'Heat')!;
    expect(heat).toEqual({
      event: {
        id: anyString,
        type: 'media.added',
        occurredAt: isoTime,
      },
      library: { id: movies.id, name: 'Films' },
      media: {
        id: heatItem.id,
        type: 'movie',
        title: 'Heat',
        originalTitle: 'Heat',
        year: 1995,
        releaseDate: '1995-12-15',
        tmdbId: '949',
        imdbId: 'tt0113277',
        posterPath: '/heatProviderPoster.jpg',
        posterUrl: 'https://image.tmdb.org/t/p/original/heatProviderPoster.jpg',
        overview: env.fixtures.movies.find((movie) => movie.title === 'Heat')!.nfo!.plot,
      },
      episode: { seasonNumber: null, episodeNumber: null, name: null },
      item: { sourceItemId: heatItem.id, name: 'Heat (1995).mp4' },
      summary: { newTitles: 3, newItems: 3 },
    });

    const episodeEvents = events.filter((event) => event.media.type === 'series');
    const show = env.fixtures.series[0]!;
    expect(episodeEvents).toHaveLength(show.seasons.flatMap((season) => season.episodes).length);
    const pilot = episodeEvents.find(
      (event) => event.episode.seasonNumber === 1 && event.episode.episodeNumber === 1,
    )!;
    expect(pilot).toMatchObject({
      library: { id: series.id, name: 'Series' },
      media: {
        type: 'series',
        title: 'Show',
        year: 2020,
        tmdbId: '90001',
        imdbId: 'tt9000001',
        overview: show.nfo.plot,
      },
      episode: { seasonNumber: 1, episodeNumber: 1, name: 'Pilot (from nfo)' },
      item: { name: 'Show - S01E01 - Pilot.mkv' },
      summary: { newTitles: 1, newItems: 4 },
    });
    for (const event of events) {
      expect(event.media.posterUrl).toBeTruthy();
      expect(event.media.posterPath).toBeTruthy();
    }
    await env.parts.events.markDelivered(
      events.map((event) => event.event.id),
      new Date(),
    );
    expect(await undelivered()).toEqual([]);
  });

  it('incremental scan picks up an added and a removed file, and a changed nfo; nothing else is touched', async () => {
    const show = env.fixtures.series[0]!;
    const removed = show.seasons
      .find((s) => s.seasonNumber === 1)!
      .episodes.find((e) => e.episodeNumber === 2)!;
    const added = `${show.folder}/Season 02/Show - S02E03 - Third.mkv`;
    await copyFile(insideMount(env.fixtures.spareVideo), insideMount(added));
    await rm(insideMount(removed.file));

    const unchanged = await scan(series.id, 'incremental');
    finished(unchanged);
    expect(unchanged).toMatchObject({
      itemsAdded: 1,
      itemsRemoved: 1,
      itemsUpdated: 0,
      filesTotal: 4,
      filesSeen: 4,
    });
    const episodes = await allItems(series.id, '&kind=episode');
    expect(episodes.map((e) => `${e.seasonNumber}x${e.episodeNumber}`)).toEqual(['0x1', '1x1', '2x1', '2x3']);
    const third = await detail(episodes.find((e) => e.episodeNumber === 3)!.id);
    expect(third).toMatchObject({ title: 'Third', file: { path: added } });
    expect(third.mediaInfo?.durationSeconds).toBeGreaterThan(0);

    const events = await undelivered();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      media: { type: 'series', title: 'Show' },
      episode: { seasonNumber: 2, episodeNumber: 3, name: 'Third' },
      item: { sourceItemId: third.id, name: 'Show - S02E03 - Third.mkv' },
      summary: { newTitles: 1, newItems: 1 },
    });
    await env.parts.events.markDelivered([events[0]!.event.id], new Date());

    // A changed .nfo changes the movie at the next incremental scan; the other movies stay as they are.
    const heatNfo = path.join(path.dirname(insideMount(env.fixtures.movies[0]!.file)), 'movie.nfo');
    const text = await readFile(heatNfo, 'utf8');
    await writeFile(heatNfo, text.replace(/<plot>[^<]*<\/plot>/, '<plot>A changed plot.</plot>'));
    const before = await allItems(movies.id);
    const rescan = await scan(movies.id, 'incremental');
    finished(rescan);
    expect(rescan).toMatchObject({ itemsAdded: 0, itemsRemoved: 0, itemsUpdated: 1, filesSeen: 3 });
    const after = await allItems(movies.id);
    const heat = after.find((item) => item.title === 'Heat')!;
    expect((await detail(heat.id)).overview).toBe('A changed plot.');
    for (const item of after.filter((i) => i.title !== 'Heat')) {
      expect(item.updatedAt).toBe(before.find((b) => b.id === item.id)!.updatedAt);
    }
    expect(await undelivered()).toEqual([]);

    // A full scan looks at everything again.
    const full = await scan(movies.id, 'full');
    expect(full).toMatchObject({ state: 'succeeded', itemsUpdated: 3, itemsAdded: 0 });
  });

  it('sees what is placed through the storage node: an open upload is no item, a completed one is', async () => {
    const target = '/Movies/Uploaded (2001).mkv';
    const broken = '/Movies/Broken (2002).mkv';
    const mountUrl = `/api/storage/mounts/${env.mountId}`;
    // The spare video of the shared fixtures (this library's copy was removed by the test above).
    const bytes = await readFile(path.join(env.fixtures.library, ...env.fixtures.spareVideo.split('/')));
    const upload = await env.storage.api<Upload>('POST', `${mountUrl}/uploads`, {
      body: { path: target.slice(1), size: bytes.length },
    });
    expect(upload.status).toBe(201);
    // On a local mount the node collects the bytes in its temp file next to the target.
    expect(await readdir(insideMount('/Movies'))).toContain(`.svc-tmp-${upload.body.id}`);
    // A "video" ffprobe cannot read: the node answers 422 PROBE_FAILED, the item comes without media info.
    await writeFile(insideMount(broken), 'not a video');

    const whileOpen = await scan(movies.id, 'incremental');
    finished(whileOpen);
    expect(whileOpen).toMatchObject({ filesTotal: 4, itemsAdded: 1, itemsRemoved: 0 });
    expect((await allItems(movies.id)).map((item) => item.title).sort()).toEqual([
      'Arrival',
      'Broken',
      'Heat',
      'The Matrix',
    ]);
    const brokenItem = (await allItems(movies.id)).find((item) => item.title === 'Broken')!;
    expect(await detail(brokenItem.id)).toMatchObject({ file: { path: broken }, mediaInfo: null });

    const chunk = await env.storage.api('PUT', `${mountUrl}/uploads/${upload.body.id}/chunks/0`, {
      raw: bytes,
    });
    expect(chunk.status).toBe(200);
    const completed = await env.storage.api('POST', `${mountUrl}/uploads/${upload.body.id}/complete`);
    expect(completed.status).toBe(200);
    const afterUpload = await scan(movies.id, 'incremental');
    finished(afterUpload);
    expect(afterUpload).toMatchObject({ filesTotal: 5, itemsAdded: 1, itemsUpdated: 0, itemsRemoved: 0 });
    const uploadedItem = (await allItems(movies.id)).find((item) => item.title === 'Uploaded')!;
    const uploaded = await detail(uploadedItem.id);
    expect(uploaded).toMatchObject({ year: 2001, file: { path: target, size: bytes.length } });
    expect(uploaded.mediaInfo?.durationSeconds).toBeGreaterThan(0);

    // Deleted through the node: the next scan removes both.
    for (const file of [target, broken]) {
      const deleted = await env.storage.api('POST', `${mountUrl}/delete`, { body: { path: file.slice(1) } });
      expect(deleted.status).toBe(204);
    }
    const afterDelete = await scan(movies.id, 'incremental');
    finished(afterDelete);
    expect(afterDelete).toMatchObject({ filesTotal: 3, itemsAdded: 0, itemsRemoved: 2 });
    expect((await allItems(movies.id)).map((item) => item.title).sort()).toEqual([
      'Arrival',
      'Heat',
      'The Matrix',
    ]);
    const events = await undelivered();
    expect(events.map((event) => event.media.title).sort()).toEqual(['Broken', 'Uploaded']);
    await env.parts.events.markDelivered(
      events.map((event) => event.event.id),
      new Date(),
    );
  });

  it('keeps the items of a source that walks empty (an unmounted drive looks like that)', async () => {
    const before = await allItems(series.id, '&kind=episode');
    await mkdir(insideMount('/Parked'));
    await rename(insideMount('/TV/Show (2020)'), insideMount('/Parked/Show (2020)'));
    try {
      const empty = await scan(series.id, 'incremental');
      expect(empty).toMatchObject({ state: 'failed', itemsRemoved: 0 });
      expect(empty.error).toContain('is empty');
      expect(await allItems(series.id, '&kind=episode')).toEqual(before);
    } finally {
      await rename(insideMount('/Parked/Show (2020)'), insideMount('/TV/Show (2020)'));
    }
  });

  it('keeps the metadata provider settings masked and refuses bad ones without saving', async () => {
    const current = await env.api<MetadataProviderSettings>('GET', '/api/media/settings/metadata-provider');
    expect(current.body).toEqual({
      enabled: true,
      baseUrl: env.tmdb.baseUrl,
      apiKeySet: true,
      apiKeyMasked: `****${env.tmdb.apiKey.slice(-4)}`,
      language: null,
      imageBaseUrl: 'https://image.tmdb.org/t/p/original',
    });
    expect(JSON.stringify(current.body)).not.toContain(env.tmdb.apiKey);
    for (const body of [
      { enabled: true, baseUrl: 'ftp://x' },
      { enabled: 'yes', baseUrl: env.tmdb.baseUrl },
      { baseUrl: env.tmdb.baseUrl },
    ]) {
      const refused = await env.api<ErrorAnswer>('PUT', '/api/media/settings/metadata-provider', { body });
      expect(refused.status).toBe(400);
    }
    const notAllowed = await env.api<ErrorAnswer>('GET', '/api/media/settings/metadata-provider', {
      identity: { ...SETTINGS_ONLY, permissions: ['library'] },
    });
    expect(notAllowed.status).toBe(403);
    expect((await env.api('GET', '/api/media/settings/metadata-provider')).body).toEqual(current.body);
  });

  it('refuses to change sources to a mount the node does not have, and drops the items of a removed source', async () => {
    const refused = await env.api<ErrorAnswer>('PATCH', `/api/media/libraries/${movies.id}`, {
      body: { sources: [{ nodeId: env.storage.nodeId, mountId: 'gone', path: '/Movies' }] },
    });
    expect(refused.status).toBe(400);
    expect((await allItems(movies.id)).length).toBe(3);
    const moved = await env.api<Library>('PATCH', `/api/media/libraries/${movies.id}`, {
      body: { sources: [env.source('/Elsewhere')] },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.counts).toEqual({ movies: 0, series: 0, seasons: 0, episodes: 0 });
    // A source folder that does not exist fails the scan and removes nothing.
    const missing = await scan(movies.id, 'incremental');
    expect(missing.state).toBe('failed');
    expect(missing.error).toContain('/Elsewhere');
  });

  it('scans a new library right after creating it, without making the request wait for the scan', async () => {
    const created = await env.api<Library>('POST', '/api/media/libraries', {
      // No `scan: false`: a new library is scanned by default.
      body: { name: 'Fresh series', type: 'series', sources: [env.source('/TV')] },
    });
    expect(created.status).toBe(201);
    // The answer names the scan it started; it has not finished when the library is returned.
    expect(created.body.counts).toEqual({ movies: 0, series: 0, seasons: 0, episodes: 0 });
    expect(created.body.lastScan).toMatchObject({
      libraryId: created.body.id,
      mode: 'full',
      trigger: 'manual',
      scope: null,
      finishedAt: null,
    });
    expect(['queued', 'running']).toContain(created.body.lastScan?.state);
    const listed = await env.api<ListLibrariesResponse>('GET', '/api/media/libraries');
    expect(listed.body.libraries.find((library) => library.id === created.body.id)?.lastScan?.id).toBe(
      created.body.lastScan?.id,
    );

    finished(await env.waitForScan(created.body.id, created.body.lastScan!.id));
    // It read the same folder as the series library scanned by hand above.
    const after = await env.api<Library>('GET', `/api/media/libraries/${created.body.id}`);
    const same = await env.api<Library>('GET', `/api/media/libraries/${series.id}`);
    expect(after.body.counts.episodes).toBeGreaterThan(0);
    expect(after.body.counts).toEqual(same.body.counts);
  });
});
