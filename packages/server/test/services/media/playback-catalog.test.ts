import { randomUUID } from 'node:crypto';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Library,
  PlaybackItem,
  PlaybackItemsQuery,
  PlaybackItemsResponse,
  PlaybackUserData,
  PlaybackUserDataUpdate,
  PlaybackViewsResponse,
} from '@svc/contracts';
import type { NewItemRow } from '../../../src/services/media/items/items.repository.js';
import { installBackends } from '../../support/install-backends.js';
import { playbackUserData } from '../../support/playback-user-data.js';
import { startMediaTestEnv, type MediaTestEnv } from './support/media-env.js';

interface ErrorAnswer {
  error: { code: string; message: string };
}

const BASE = '/api/media/internal/playback';
const T0 = Date.parse('2024-01-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const USER = randomUUID();
/** An image tag: 16 hex digits (an asymmetric matcher typed as the value it stands for). */
const imageTag = expect.stringMatching(/^[0-9a-f]{16}$/) as unknown as string;
const OTHER_USER = randomUUID();

type EpisodeCode =
  | 'oneS00E01'
  | 'oneS01E01'
  | 'oneS01E02'
  | 'oneS01E03'
  | 'oneS02E01'
  | 'oneS02E02'
  | 'twoS01E01'
  | 'twoS01E02';

/** Ids of the seeded catalogue. */
interface Seeded {
  films: Library;
  shows: Library;
  movie: Record<'alpha' | 'bravo' | 'charlie' | 'delta', string>;
  showOne: string;
  showTwo: string;
  /** Show One: season 0 (Specials), 1 and 2; Show Two: season 1. */
  season: Record<'oneS0' | 'oneS1' | 'oneS2' | 'twoS1', string>;
  /** Episode ids by code: one/two + SxxEyy. */
  episode: Record<EpisodeCode, string>;
  alphaPoster: Buffer;
}

describe.each(installBackends())('playback catalogue for the play-agent on $label', (backend) => {
  let env: MediaTestEnv;
  let seeded: Seeded;

  const query = async (body: Partial<PlaybackItemsQuery>) => {
    const answer = await env.api<PlaybackItemsResponse>('POST', `${BASE}/items/query`, {
      body: { userId: USER, ...body },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const names = async (body: Partial<PlaybackItemsQuery>) => (await query(body)).items.map((i) => i.name);
  const item = async (id: string, userId = USER) => {
    const answer = await env.api<PlaybackItem>('GET', `${BASE}/items/${id}?userId=${userId}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const list = async (kind: 'latest' | 'resume' | 'next-up', params: Record<string, string> = {}) => {
    const search = new URLSearchParams({ userId: USER, ...params });
    const answer = await env.api<PlaybackItemsResponse>('GET', `${BASE}/${kind}?${search.toString()}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const update = async (change: Omit<PlaybackUserDataUpdate, 'userId'> & { userId?: string }) => {
    const answer = await env.api<PlaybackUserData>('PUT', `${BASE}/user-data`, {
      body: { userId: USER, ...change },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };

  /** Creates a library over a folder of the mount and inserts its items straight into the database. */
  const createLibrary = async (name: string, type: Library['type'], folder: string) => {
    await mkdir(path.join(env.mountRoot, folder), { recursive: true });
    // Not scanned: its items are written straight into the database; a scan would replace them.
    return env.createLibrary(name, type, `/${folder}`);
  };
  const rowOf = (library: Library, values: Partial<NewItemRow> & Pick<NewItemRow, 'kind' | 'title'>) => {
    const id = values.id ?? randomUUID();
    const created = values.created_at ?? at(0);
    return {
      id,
      library_id: library.id,
      source_id: library.sources[0]!.id,
      item_key: `key:${id}`,
      path: `/${values.title}`,
      sort_title: values.title.toLowerCase().replace(/^the /, ''),
      subtitles: '[]',
      images: '{}',
      created_at: created,
      updated_at: created,
      ...values,
    } satisfies NewItemRow;
  };
  const insert = (rows: NewItemRow[]) => env.parts.items.insertMany(env.parts.database.db, rows);

  const mediaInfo = (durationSeconds: number | null) =>
    JSON.stringify({ container: 'matroska', durationSeconds, bitrate: 1000, size: 2048, streams: [] });

  beforeAll(async () => {
    env = await startMediaTestEnv(backend);
    const films = await createLibrary('Films', 'movies', 'Catalog/Films');
    const shows = await createLibrary('Shows', 'series', 'Catalog/Shows');

    const alphaPoster = Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256));
    const posterPath = path.join(env.mountRoot, 'Catalog/Films/alpha-poster.jpg');
    await writeFile(posterPath, alphaPoster);
    const posterStat = await stat(posterPath);
    const showPosterPath = path.join(env.mountRoot, 'Catalog/Shows/poster.png');
    await writeFile(showPosterPath, Buffer.from('not really a png'));
    const showPosterStat = await stat(showPosterPath);

    const movie = (
      title: string,
      minutes: number,
      extra: Partial<NewItemRow> = {},
    ): ReturnType<typeof rowOf> =>
      rowOf(films, {
        kind: 'movie',
        title,
        path: `/Catalog/Films/${title}.mkv`,
        file_size: 1000 + minutes,
        file_mtime: at(minutes),
        created_at: at(minutes),
        ...extra,
      });
    const alpha = movie('The Alpha', 1, {
      year: 2001,
      release_date: '2001-05-04',
      media_info: mediaInfo(7200),
      tmdb_id: '101',
      imdb_id: 'tt0000101',
      subtitles: JSON.stringify([
        {
          path: '/Catalog/Films/The Alpha.en.srt',
          format: 'srt',
          language: 'en',
          forced: false,
          default: false,
          hearingImpaired: false,
        },
      ]),
      images: JSON.stringify({
        poster: {
          path: '/Catalog/Films/alpha-poster.jpg',
          size: posterStat.size,
          mtime: posterStat.mtime.toISOString(),
        },
      }),
    });
    const bravo = movie('Bravo', 2, {
      year: 1999,
      release_date: '1999-01-01',
      media_info: mediaInfo(5400),
      // Only the provider's poster: the image route cannot serve it, so no tag either.
      provider_poster_path: '/bravo.jpg',
      provider_poster_url: 'https://image.tmdb.org/t/p/original/bravo.jpg',
    });
    const charlie = movie('Charlie', 3, {
      year: 2010,
      original_title: 'Le Charlie',
      release_date: '2010-10-10',
      media_info: mediaInfo(null),
    });
    const delta = movie('Delta', 4, { year: 2001, release_date: '2001-01-01', media_info: mediaInfo(6000) });

    const showOne = rowOf(shows, {
      kind: 'series',
      title: 'Show One',
      path: '/Catalog/Shows/Show One',
      year: 2015,
      created_at: at(5),
      images: JSON.stringify({
        poster: {
          path: '/Catalog/Shows/poster.png',
          size: showPosterStat.size,
          mtime: showPosterStat.mtime.toISOString(),
        },
      }),
    });
    const showTwo = rowOf(shows, {
      kind: 'series',
      title: 'Show Two',
      path: '/Catalog/Shows/Show Two',
      year: 2020,
      created_at: at(6),
    });
    const season = (series: typeof showOne, number: number) =>
      rowOf(shows, {
        kind: 'season',
        title: number === 0 ? 'Specials' : `Season ${number}`,
        parent_id: series.id,
        series_id: series.id,
        season_number: number,
        path: `${series.path}/Season ${number}`,
        created_at: series.created_at,
      });
    const oneS0 = season(showOne, 0);
    const oneS1 = season(showOne, 1);
    const oneS2 = season(showOne, 2);
    const twoS1 = season(showTwo, 1);
    const episode = {} as Record<EpisodeCode, string>;
    // Titles in the reverse of the alphabet, so that numbered order and title order differ.
    const episodeRow = (
      code: EpisodeCode,
      seasonRow: typeof oneS1,
      number: number,
      title: string,
      minutes: number,
    ) => {
      const row = rowOf(shows, {
        kind: 'episode',
        title,
        parent_id: seasonRow.id,
        series_id: seasonRow.series_id,
        season_number: seasonRow.season_number,
        episode_number: number,
        path: `${seasonRow.path}/${code}.mkv`,
        file_size: 500,
        file_mtime: at(minutes),
        media_info: mediaInfo(1500 + number),
        created_at: at(minutes),
      });
      episode[code] = row.id;
      return row;
    };
    const episodes = [
      episodeRow('oneS00E01', oneS0, 1, 'Behind It', 10),
      episodeRow('oneS01E01', oneS1, 1, 'Zeta', 11),
      episodeRow('oneS01E02', oneS1, 2, 'Yankee', 12),
      episodeRow('oneS01E03', oneS1, 3, 'Xray', 13),
      episodeRow('oneS02E01', oneS2, 1, 'Whiskey', 14),
      episodeRow('oneS02E02', oneS2, 2, 'Victor', 15),
      episodeRow('twoS01E01', twoS1, 1, 'Uniform', 20),
      episodeRow('twoS01E02', twoS1, 2, 'Tango', 21),
    ];
    await insert([alpha, bravo, charlie, delta, showOne, showTwo, oneS0, oneS1, oneS2, twoS1, ...episodes]);
    seeded = {
      films,
      shows,
      movie: { alpha: alpha.id, bravo: bravo.id, charlie: charlie.id, delta: delta.id },
      showOne: showOne.id,
      showTwo: showTwo.id,
      season: { oneS0: oneS0.id, oneS1: oneS1.id, oneS2: oneS2.id, twoS1: twoS1.id },
      episode,
      alphaPoster,
    };
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('answers only callers with the service token', async () => {
    const routes: [method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown][] = [
      ['GET', `${BASE}/views?userId=${USER}`],
      ['POST', `${BASE}/items/query`, { userId: USER }],
      ['GET', `${BASE}/items/${seeded.movie.alpha}?userId=${USER}`],
      ['GET', `${BASE}/latest?userId=${USER}`],
      ['GET', `${BASE}/resume?userId=${USER}`],
      ['GET', `${BASE}/next-up?userId=${USER}`],
      ['PUT', `${BASE}/user-data`, { userId: USER, itemId: seeded.movie.alpha, isFavorite: true }],
      ['GET', `${BASE}/items/${seeded.movie.alpha}/images/poster`],
    ];
    for (const [method, url, body] of routes) {
      const missing = await env.api<ErrorAnswer>(method, url, { body, serviceToken: false, identity: null });
      expect(missing.status, `${method} ${url}`).toBe(401);
      expect(missing.body.error.code).toBe('UNAUTHORIZED');
      const wrong = await env.api<ErrorAnswer>(method, url, {
        body,
        serviceToken: false,
        identity: null,
        headers: { 'x-svc-service-token': 'svc_st_wrong_token_of_the_same_kind_0123456789' },
      });
      expect(wrong.status, `${method} ${url}`).toBe(403);
      expect(wrong.body.error.code).toBe('FORBIDDEN');
      // No identity is needed: the service token alone admits the play-agent.
      const admitted = await env.api(method, url, { body, identity: null });
      expect(admitted.status, `${method} ${url}`).toBe(200);
    }
    // Only the admitted update counted.
    expect((await item(seeded.movie.alpha)).userData.isFavorite).toBe(true);
    await update({ itemId: seeded.movie.alpha, isFavorite: false });
  });

  it('lists every library as a view', async () => {
    const answer = await env.api<PlaybackViewsResponse>('GET', `${BASE}/views?userId=${USER}`);
    expect(answer.status).toBe(200);
    expect(answer.body.views).toEqual([
      {
        id: seeded.films.id,
        name: 'Films',
        type: 'movies',
        itemCount: 4,
        dateCreated: seeded.films.createdAt,
        imageItemId: seeded.movie.alpha,
      },
      {
        id: seeded.shows.id,
        name: 'Shows',
        type: 'series',
        itemCount: 2,
        dateCreated: seeded.shows.createdAt,
        imageItemId: seeded.showOne,
      },
    ]);
    expect((await env.api('GET', `${BASE}/views`)).status).toBe(400);
  });

  it('browses the top level, a library, a series and a season', async () => {
    const top = await query({});
    expect(top.items.map((i) => i.name)).toEqual([
      'The Alpha',
      'Bravo',
      'Charlie',
      'Delta',
      'Show One',
      'Show Two',
    ]);
    expect(top).toMatchObject({ totalRecordCount: 6, startIndex: 0 });

    expect(await names({ parentId: seeded.films.id })).toEqual(['The Alpha', 'Bravo', 'Charlie', 'Delta']);
    const series = await query({ parentId: seeded.shows.id });
    expect(series.items.map((i) => i.name)).toEqual(['Show One', 'Show Two']);
    expect(series.items[0]).toMatchObject({
      kind: 'series',
      parentId: seeded.shows.id,
      libraryId: seeded.shows.id,
      seriesId: null,
      childCount: 3,
      recursiveItemCount: 6,
      file: null,
      userData: { played: false, unplayedItemCount: 6, playCount: 0 },
    });
    expect(series.items[0]!.imageTags.poster).toMatch(/^[0-9a-f]{16}$/);

    // Seasons in their numbered order (not "season 1" < "season 10" < "specials").
    const seasons = await query({ parentId: seeded.showOne });
    expect(seasons.items.map((i) => [i.name, i.indexNumber])).toEqual([
      ['Specials', 0],
      ['Season 1', 1],
      ['Season 2', 2],
    ]);
    expect(seasons.items[1]).toMatchObject({
      id: seeded.season.oneS1,
      kind: 'season',
      parentId: seeded.showOne,
      seriesId: seeded.showOne,
      seriesName: 'Show One',
      seasonId: null,
      childCount: 3,
      recursiveItemCount: 3,
      userData: { played: false, unplayedItemCount: 3 },
    });

    const episodes = await query({ parentId: seeded.season.oneS1 });
    expect(episodes.items.map((i) => i.name)).toEqual(['Zeta', 'Yankee', 'Xray']);
    expect(episodes.items[1]).toMatchObject({
      id: seeded.episode.oneS01E02,
      kind: 'episode',
      parentId: seeded.season.oneS1,
      seriesId: seeded.showOne,
      seriesName: 'Show One',
      seasonId: seeded.season.oneS1,
      seasonName: 'Season 1',
      indexNumber: 2,
      indexNumberEnd: null,
      parentIndexNumber: 1,
      childCount: null,
      recursiveItemCount: null,
      imageTags: {},
      userData: playbackUserData(),
      file: {
        nodeId: env.storage.nodeId,
        mountId: env.mountId,
        path: '/Catalog/Shows/Show One/Season 1/oneS01E02.mkv',
        size: 500,
        mtime: at(12).toISOString(),
        mediaInfo: { container: 'matroska', durationSeconds: 1502 },
        subtitles: [],
      },
    });
    // A file has no children; unknown or malformed parents give an empty answer, not an error.
    for (const parentId of [seeded.movie.alpha, seeded.episode.oneS01E01, randomUUID(), 'not-a-uuid']) {
      expect(await query({ parentId }), parentId).toEqual({ items: [], totalRecordCount: 0, startIndex: 0 });
    }
  });

  it('maps every field of a movie', async () => {
    const alpha = await item(seeded.movie.alpha);
    expect(alpha).toEqual({
      id: seeded.movie.alpha,
      libraryId: seeded.films.id,
      kind: 'movie',
      name: 'The Alpha',
      originalTitle: null,
      sortName: 'alpha',
      overview: null,
      year: 2001,
      premiereDate: '2001-05-04T00:00:00.000Z',
      parentId: seeded.films.id,
      seriesId: null,
      seriesName: null,
      seasonId: null,
      seasonName: null,
      indexNumber: null,
      indexNumberEnd: null,
      parentIndexNumber: null,
      childCount: null,
      recursiveItemCount: null,
      dateCreated: at(1).toISOString(),
      providerIds: { tmdb: '101', imdb: 'tt0000101' },
      imageTags: { poster: imageTag },
      userData: playbackUserData(),
      file: {
        nodeId: env.storage.nodeId,
        mountId: env.mountId,
        path: '/Catalog/Films/The Alpha.mkv',
        size: 1001,
        mtime: at(1).toISOString(),
        mediaInfo: { container: 'matroska', durationSeconds: 7200, bitrate: 1000, size: 2048, streams: [] },
        subtitles: [
          {
            path: '/Catalog/Films/The Alpha.en.srt',
            format: 'srt',
            language: 'en',
            forced: false,
            default: false,
            hearingImpaired: false,
          },
        ],
      },
    });
    // The tag is stable; provider-only posters have none (the image route cannot serve them).
    expect((await item(seeded.movie.alpha)).imageTags.poster).toBe(alpha.imageTags.poster);
    expect((await item(seeded.movie.bravo)).imageTags).toEqual({});
  });

  it('answers 404 for unknown and malformed item ids', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', seeded.films.id]) {
      const answer = await env.api<ErrorAnswer>('GET', `${BASE}/items/${id}?userId=${USER}`);
      expect(answer.status, id).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
      const updated = await env.api<ErrorAnswer>('PUT', `${BASE}/user-data`, {
        body: { userId: USER, itemId: id, played: true },
      });
      expect(updated.status, id).toBe(404);
    }
    expect((await env.api('GET', `${BASE}/items/${seeded.movie.alpha}?userId=nobody`)).status).toBe(400);
    expect((await env.api('GET', `${BASE}/items/${seeded.movie.alpha}`)).status).toBe(400);
  });

  it('descends recursively with kinds, ids, series and season filters', async () => {
    const episodes = await query({ parentId: seeded.shows.id, recursive: true, includeKinds: ['episode'] });
    expect(episodes.totalRecordCount).toBe(8);
    const all = await query({ parentId: seeded.shows.id, recursive: true });
    expect(all.totalRecordCount).toBe(2 + 4 + 8);
    expect(
      (await query({ parentId: seeded.shows.id, recursive: true, excludeKinds: ['episode', 'season'] }))
        .totalRecordCount,
    ).toBe(2);
    expect(await names({ recursive: true, includeKinds: ['movie'] })).toEqual([
      'The Alpha',
      'Bravo',
      'Charlie',
      'Delta',
    ]);
    expect((await query({ recursive: true })).totalRecordCount).toBe(4 + 2 + 4 + 8);
    // A series recursively: its seasons and episodes.
    expect((await query({ parentId: seeded.showOne, recursive: true })).totalRecordCount).toBe(3 + 6);
    expect(
      await names({ parentId: seeded.showOne, recursive: true, includeKinds: ['episode'], limit: 3 }),
    ).toEqual(['Behind It', 'Zeta', 'Yankee']);

    // Ids look everywhere (an episode as well), still filtered by the rest.
    const byIds = await query({ ids: [seeded.movie.bravo, seeded.episode.twoS01E02, 'junk', randomUUID()] });
    expect(byIds.items.map((i) => i.id).sort()).toEqual(
      [seeded.movie.bravo, seeded.episode.twoS01E02].sort(),
    );
    expect(
      await names({ ids: [seeded.movie.bravo, seeded.episode.twoS01E02], includeKinds: ['movie'] }),
    ).toEqual(['Bravo']);
    expect((await query({ ids: [] })).totalRecordCount).toBe(0);

    expect(await names({ seriesId: seeded.showOne, seasonNumber: 1 })).toEqual(['Zeta', 'Yankee', 'Xray']);
    expect(await names({ seriesId: seeded.showOne, includeKinds: ['season'] })).toEqual([
      'Specials',
      'Season 1',
      'Season 2',
    ]);
    expect((await query({ seriesId: 'nope' })).totalRecordCount).toBe(0);
    expect(await names({ years: [2001] })).toEqual(['The Alpha', 'Delta']);
    expect(await names({ years: [2001, 2020], parentId: seeded.shows.id })).toEqual(['Show Two']);
  });

  it('searches titles and original titles without regard to case', async () => {
    expect(await names({ searchTerm: 'ALPHA' })).toEqual(['The Alpha']);
    expect(await names({ searchTerm: 'le char' })).toEqual(['Charlie']);
    expect(await names({ searchTerm: 'show', recursive: true })).toEqual(['Show One', 'Show Two']);
    // Episodes of two series by name: (season, episode, title).
    expect(await names({ searchTerm: 'a', recursive: true, includeKinds: ['episode'] })).toEqual([
      'Zeta',
      'Tango',
      'Yankee',
      'Xray',
    ]);
    // LIKE wildcards are plain characters.
    expect(await names({ searchTerm: '%' })).toEqual([]);
    expect(await names({ searchTerm: '_' })).toEqual([]);
  });

  it('pages with the count before paging', async () => {
    const page = await query({ startIndex: 2, limit: 2 });
    expect(page.items.map((i) => i.name)).toEqual(['Charlie', 'Delta']);
    expect(page).toMatchObject({ totalRecordCount: 6, startIndex: 2 });
    const last = await query({ startIndex: 5, limit: 10 });
    expect(last.items.map((i) => i.name)).toEqual(['Show Two']);
    expect(await query({ startIndex: 50 })).toEqual({ items: [], totalRecordCount: 6, startIndex: 50 });
    expect(await query({ limit: 0 })).toEqual({ items: [], totalRecordCount: 6, startIndex: 0 });
    const refused = await env.api<ErrorAnswer>('POST', `${BASE}/items/query`, {
      body: { userId: USER, limit: 1001 },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('sorts by one field or several, ascending or descending', async () => {
    const movies = { parentId: seeded.films.id };
    expect(await names({ ...movies, sortOrder: 'desc' })).toEqual(['Delta', 'Charlie', 'Bravo', 'The Alpha']);
    expect(await names({ ...movies, sortBy: ['year'], sortOrder: 'desc' })).toEqual([
      'Charlie',
      'The Alpha',
      'Delta',
      'Bravo',
    ]);
    // Several fields, one order for all: year, then name.
    expect(await names({ ...movies, sortBy: ['year', 'name'], sortOrder: 'desc' })).toEqual([
      'Charlie',
      'Delta',
      'The Alpha',
      'Bravo',
    ]);
    expect(await names({ ...movies, sortBy: ['year', 'name'] })).toEqual([
      'Bravo',
      'The Alpha',
      'Delta',
      'Charlie',
    ]);
    // Missing values (Charlie has no duration) come last either way.
    expect(await names({ ...movies, sortBy: ['runtime'] })).toEqual([
      'Bravo',
      'Delta',
      'The Alpha',
      'Charlie',
    ]);
    expect(await names({ ...movies, sortBy: ['runtime'], sortOrder: 'desc' })).toEqual([
      'The Alpha',
      'Delta',
      'Bravo',
      'Charlie',
    ]);
    expect(await names({ ...movies, sortBy: ['dateCreated'], sortOrder: 'desc' })).toEqual([
      'Delta',
      'Charlie',
      'Bravo',
      'The Alpha',
    ]);
    expect(await names({ ...movies, sortBy: ['premiereDate'] })).toEqual([
      'Bravo',
      'Delta',
      'The Alpha',
      'Charlie',
    ]);
    const randomOrder = await names({ ...movies, sortBy: ['random'] });
    expect([...randomOrder].sort()).toEqual(['Bravo', 'Charlie', 'Delta', 'The Alpha']);

    // Episodes: season (parentIndex) descending, then episode (index) descending.
    const showOneEpisodes = { parentId: seeded.showOne, recursive: true, includeKinds: ['episode' as const] };
    expect(
      (await query({ ...showOneEpisodes, sortBy: ['parentIndex', 'index'], sortOrder: 'desc' })).items.map(
        (i) => `S${i.parentIndexNumber}E${i.indexNumber}`,
      ),
    ).toEqual(['S2E2', 'S2E1', 'S1E3', 'S1E2', 'S1E1', 'S0E1']);
    expect(await names({ parentId: seeded.season.oneS1, sortBy: ['index'], sortOrder: 'desc' })).toEqual([
      'Xray',
      'Yankee',
      'Zeta',
    ]);
    expect(await names({ parentId: seeded.showOne, sortBy: ['index'], sortOrder: 'desc' })).toEqual([
      'Season 2',
      'Season 1',
      'Specials',
    ]);
    const bad = await env.api<ErrorAnswer>('POST', `${BASE}/items/query`, {
      body: { userId: USER, sortBy: ['title'] },
    });
    expect(bad.status).toBe(400);
  });

  it('lists the latest movies and series, one entry per series', async () => {
    const latest = await list('latest');
    expect(latest.items.map((i) => i.name)).toEqual([
      'Show Two', // newest episode at 21
      'Show One', // newest episode at 15
      'Delta',
      'Charlie',
      'Bravo',
      'The Alpha',
    ]);
    expect(latest.totalRecordCount).toBe(6);
    expect((await list('latest', { limit: '2' })).items.map((i) => i.name)).toEqual(['Show Two', 'Show One']);
    expect((await list('latest', { kinds: 'movie' })).items.map((i) => i.name)).toEqual([
      'Delta',
      'Charlie',
      'Bravo',
      'The Alpha',
    ]);
    // Asking for episodes gives their series, grouped.
    expect((await list('latest', { kinds: 'Episode , series' })).items.map((i) => i.kind)).toEqual([
      'series',
      'series',
    ]);
    expect(
      (await list('latest', { parentId: seeded.films.id, limit: '1' })).items.map((i) => i.name),
    ).toEqual(['Delta']);
    // Below a series: its newest episodes.
    expect((await list('latest', { parentId: seeded.showOne, limit: '2' })).items.map((i) => i.name)).toEqual(
      ['Victor', 'Whiskey'],
    );
    expect((await list('latest', { parentId: randomUUID() })).items).toEqual([]);
    const bad = await env.api<ErrorAnswer>('GET', `${BASE}/latest?userId=${USER}&kinds=movie,banana`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('keeps user data per user: played, favourite, position, plays', async () => {
    const played = await update({
      itemId: seeded.movie.bravo,
      played: true,
      lastPlayedAt: at(100).toISOString(),
    });
    expect(played).toEqual(
      playbackUserData({ played: true, playCount: 1, lastPlayedAt: at(100).toISOString() }),
    );
    expect(await update({ itemId: seeded.movie.delta, isFavorite: true })).toMatchObject({
      isFavorite: true,
      played: false,
      playCount: 0,
      lastPlayedAt: null,
    });

    const movies = { parentId: seeded.films.id };
    expect(await names({ ...movies, isPlayed: true })).toEqual(['Bravo']);
    expect(await names({ ...movies, isPlayed: false })).toEqual(['The Alpha', 'Charlie', 'Delta']);
    expect(await names({ ...movies, isFavorite: true })).toEqual(['Delta']);
    expect(await names({ ...movies, isFavorite: false })).toEqual(['The Alpha', 'Bravo', 'Charlie']);
    // Another user has nothing of it.
    expect(await names({ ...movies, isPlayed: true, userId: OTHER_USER })).toEqual([]);
    expect((await item(seeded.movie.bravo, OTHER_USER)).userData.played).toBe(false);

    // countPlay adds a play and sets the date (now by default); a stop past 90 % also marks it played.
    const before = Date.now();
    const counted = await update({ itemId: seeded.movie.alpha, countPlay: true });
    expect(counted).toMatchObject({ playCount: 1, played: false });
    expect(Date.parse(counted.lastPlayedAt!)).toBeGreaterThanOrEqual(before - 1000);
    const again = await update({
      itemId: seeded.movie.alpha,
      countPlay: true,
      played: true,
      lastPlayedAt: at(200).toISOString(),
    });
    expect(again).toMatchObject({ playCount: 2, played: true, lastPlayedAt: at(200).toISOString() });
    expect((await update({ itemId: seeded.movie.bravo, countPlay: true })).playCount).toBe(2);
    // Unplayed clears the history.
    expect(await update({ itemId: seeded.movie.alpha, played: false })).toMatchObject({
      played: false,
      playCount: 0,
      playbackPositionTicks: 0,
      lastPlayedAt: null,
    });
    expect(await names({ ...movies, sortBy: ['datePlayed'], sortOrder: 'desc' })).toEqual([
      'Bravo',
      'The Alpha',
      'Charlie',
      'Delta',
    ]);
    const invalid = await env.api<ErrorAnswer>('PUT', `${BASE}/user-data`, {
      body: { userId: USER, itemId: seeded.movie.alpha, playbackPositionTicks: -1 },
    });
    expect(invalid.status).toBe(400);
  });

  it('replaces only the values named in `replace` (the client protocol UserData update)', async () => {
    const itemId = seeded.movie.delta;
    const start = (await item(itemId)).userData;
    const kept = await update({ itemId, replace: { playbackPositionTicks: 250_000_000, played: false } });
    expect(kept).toMatchObject({ ...start, playbackPositionTicks: 250_000_000, played: false });
    expect(kept.lastPlayedAt).toBe(start.lastPlayedAt);
    const played = await update({ itemId, replace: { played: true, playCount: 4 } });
    expect(played).toMatchObject({ played: true, playCount: 4, playbackPositionTicks: 250_000_000 });
    const dated = await update({ itemId, replace: { lastPlayedAt: at(300).toISOString() } });
    expect(dated).toMatchObject({ played: true, playCount: 4, lastPlayedAt: at(300).toISOString() });
    // Back to where it was, which also shows null clears the date.
    const restored = await update({
      itemId,
      replace: {
        played: start.played,
        playCount: start.playCount,
        playbackPositionTicks: start.playbackPositionTicks,
        lastPlayedAt: null,
      },
    });
    expect(restored).toEqual(start);
  });

  it('lists partly watched files for resuming, last played first', async () => {
    await update({
      itemId: seeded.movie.charlie,
      playbackPositionTicks: 12_000_000_000,
      lastPlayedAt: at(300).toISOString(),
    });
    await update({
      itemId: seeded.episode.twoS01E01,
      playbackPositionTicks: 5_000_000_000,
      lastPlayedAt: at(301).toISOString(),
    });
    const resume = await list('resume');
    expect(resume.items.map((i) => i.name)).toEqual(['Uniform', 'Charlie']);
    expect(resume.items[1]!.userData).toMatchObject({
      playbackPositionTicks: 12_000_000_000,
      played: false,
      lastPlayedAt: at(300).toISOString(),
    });
    expect(resume.totalRecordCount).toBe(2);
    expect((await list('resume', { limit: '1' })).items.map((i) => i.name)).toEqual(['Uniform']);
    expect((await list('resume', { parentId: seeded.films.id })).items.map((i) => i.name)).toEqual([
      'Charlie',
    ]);
    expect((await list('resume', { userId: OTHER_USER })).items).toEqual([]);
    // By name, numbered episodes come before titles without numbers.
    expect(await names({ recursive: true, isResumable: true })).toEqual(['Uniform', 'Charlie']);
    expect((await query({ parentId: seeded.films.id, isResumable: false })).totalRecordCount).toBe(3);
  });

  it('finds the next episode to watch per series', async () => {
    expect((await list('next-up')).items).toEqual([]);
    // After the last played episode in order, not after the first: S01E03 played, S01E02 skipped.
    await update({ itemId: seeded.episode.oneS01E03, played: true, lastPlayedAt: at(390).toISOString() });
    await update({ itemId: seeded.episode.oneS01E01, played: true, lastPlayedAt: at(391).toISOString() });
    expect((await list('next-up')).items.map((i) => i.id)).toEqual([seeded.episode.oneS02E01]);
    await update({ itemId: seeded.episode.oneS01E03, played: false });

    await update({ itemId: seeded.episode.oneS01E01, played: true, lastPlayedAt: at(400).toISOString() });
    await update({ itemId: seeded.episode.oneS01E02, played: true, lastPlayedAt: at(401).toISOString() });
    expect((await list('next-up')).items.map((i) => i.id)).toEqual([seeded.episode.oneS01E03]);

    // After the season's last episode: the next season's first (Specials are not "after" season 1).
    await update({ itemId: seeded.episode.oneS01E03, played: true, lastPlayedAt: at(402).toISOString() });
    const next = await list('next-up');
    expect(next.items.map((i) => i.id)).toEqual([seeded.episode.oneS02E01]);
    expect(next.items[0]).toMatchObject({ seriesName: 'Show One', parentIndexNumber: 2, indexNumber: 1 });

    // A second series with newer activity comes first; seriesId narrows to one series.
    await update({ itemId: seeded.episode.twoS01E01, played: true, lastPlayedAt: at(500).toISOString() });
    const both = await list('next-up');
    expect(both.items.map((i) => i.id)).toEqual([seeded.episode.twoS01E02, seeded.episode.oneS02E01]);
    expect(both.totalRecordCount).toBe(2);
    expect((await list('next-up', { limit: '1' })).items.map((i) => i.id)).toEqual([
      seeded.episode.twoS01E02,
    ]);
    expect((await list('next-up', { seriesId: seeded.showOne })).items.map((i) => i.id)).toEqual([
      seeded.episode.oneS02E01,
    ]);
    expect((await list('next-up', { seriesId: 'nope' })).items).toEqual([]);
    expect((await list('next-up', { userId: OTHER_USER })).items).toEqual([]);

    // Containers: a season is played when every episode is.
    expect((await item(seeded.season.oneS1)).userData).toMatchObject({
      played: true,
      unplayedItemCount: 0,
      lastPlayedAt: at(402).toISOString(),
    });
    expect((await item(seeded.showOne)).userData).toMatchObject({ played: false, unplayedItemCount: 3 });
    expect(await names({ parentId: seeded.showOne, isPlayed: true })).toEqual(['Season 1']);
    expect(await names({ parentId: seeded.showOne, isPlayed: false })).toEqual(['Specials', 'Season 2']);
  });

  it('marks every episode of a series or a season played or unplayed', async () => {
    // Series Two: one episode played at 500, one not; marking the series played keeps the first's history.
    const seriesPlayed = await update({
      itemId: seeded.showTwo,
      played: true,
      lastPlayedAt: at(600).toISOString(),
    });
    expect(seriesPlayed).toMatchObject({
      played: true,
      unplayedItemCount: 0,
      lastPlayedAt: at(600).toISOString(),
    });
    expect((await item(seeded.episode.twoS01E01)).userData).toMatchObject({
      played: true,
      playCount: 1,
      lastPlayedAt: at(500).toISOString(),
    });
    expect((await item(seeded.episode.twoS01E02)).userData).toMatchObject({
      played: true,
      playCount: 1,
      lastPlayedAt: at(600).toISOString(),
    });
    expect(await names({ parentId: seeded.shows.id, isPlayed: true })).toEqual(['Show Two']);
    expect((await list('next-up', { seriesId: seeded.showTwo })).items).toEqual([]);
    // The other user is untouched.
    expect((await item(seeded.showTwo, OTHER_USER)).userData).toMatchObject({
      played: false,
      unplayedItemCount: 2,
    });

    const seriesUnplayed = await update({ itemId: seeded.showTwo, played: false });
    expect(seriesUnplayed).toMatchObject({ played: false, unplayedItemCount: 2, lastPlayedAt: null });
    for (const code of ['twoS01E01', 'twoS01E02'] as const)
      expect((await item(seeded.episode[code])).userData).toMatchObject({ played: false, playCount: 0 });

    // A season: only its own episodes; a favourite on a series stays on the series.
    const seasonPlayed = await update({ itemId: seeded.season.oneS2, played: true, isFavorite: true });
    expect(seasonPlayed).toMatchObject({ played: true, isFavorite: true, unplayedItemCount: 0 });
    expect((await item(seeded.showOne)).userData).toMatchObject({ played: false, unplayedItemCount: 1 });
    expect((await item(seeded.episode.oneS00E01)).userData.played).toBe(false);
    expect((await update({ itemId: seeded.showOne, isFavorite: true })).isFavorite).toBe(true);
    expect(await names({ parentId: seeded.shows.id, isFavorite: true })).toEqual(['Show One']);
    expect((await item(seeded.episode.oneS00E01)).userData.isFavorite).toBe(false);
    // Everything of Show One but the special is played: next up is nothing after S02E02.
    expect((await list('next-up', { seriesId: seeded.showOne })).items).toEqual([]);
  });

  it('serves local images with ranges and HEAD, and 404 for images an item does not have', async () => {
    const url = `${BASE}/items/${seeded.movie.alpha}/images/poster`;
    const poster = await env.api<Buffer>('GET', url);
    expect(poster.status).toBe(200);
    expect(poster.headers['content-type']).toBe('image/jpeg');
    expect(poster.raw.equals(seeded.alphaPoster)).toBe(true);
    const part = await env.api<Buffer>('GET', url, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.raw.equals(seeded.alphaPoster.subarray(10, 20))).toBe(true);
    expect(part.headers['content-range']).toBe(`bytes 10-19/${seeded.alphaPoster.length}`);
    const head = await request(`${env.install.url('media')}${url}`, {
      method: 'HEAD',
      headers: { 'x-svc-service-token': env.install.context.serviceToken },
    });
    const headBody = Buffer.from(await head.body.arrayBuffer());
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(seeded.alphaPoster.length));
    expect(head.headers['content-type']).toBe('image/jpeg');
    expect(headBody.length).toBe(0);
    const headWithout = await request(`${env.install.url('media')}${url}`, { method: 'HEAD' });
    await headWithout.body.dump();
    expect(headWithout.statusCode).toBe(401);

    const missing: string[] = [
      `${BASE}/items/${seeded.movie.alpha}/images/fanart`,
      // Only the provider's poster: not fetched.
      `${BASE}/items/${seeded.movie.bravo}/images/poster`,
      `${BASE}/items/${seeded.episode.oneS01E01}/images/thumb`,
      `${BASE}/items/${randomUUID()}/images/poster`,
      `${BASE}/items/not-a-uuid/images/poster`,
    ];
    for (const missingUrl of missing) {
      const answer = await env.api<ErrorAnswer>('GET', missingUrl);
      expect(answer.status, missingUrl).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
    }
    expect((await env.api('GET', `${BASE}/items/${seeded.movie.alpha}/images/banner`)).status).toBe(400);
  });

  it('pages through a library of 10,000 items with exact counts', async () => {
    const big = await createLibrary('Big', 'movies', 'Catalog/Big');
    const total = 10_000;
    const rows: NewItemRow[] = [];
    for (let n = 0; n < total; n++) {
      const title = `Title ${String(n).padStart(5, '0')}`;
      rows.push(
        rowOf(big, {
          kind: 'movie',
          title,
          year: 1950 + (n % 70),
          path: `/Catalog/Big/${title}.mkv`,
          created_at: at(1000 + n),
          media_info: mediaInfo(3600 + n),
        }),
      );
    }
    for (let start = 0; start < rows.length; start += 1000) await insert(rows.slice(start, start + 1000));
    // A few played, favourites and positions for the user.
    for (const n of [0, 1, 2]) await update({ itemId: rows[n]!.id, played: true });
    await update({ itemId: rows[9_999]!.id, isFavorite: true });
    await update({ itemId: rows[5_000]!.id, playbackPositionTicks: 10 });

    const first = await query({ parentId: big.id, limit: 100 });
    expect(first.totalRecordCount).toBe(total);
    expect(first.items).toHaveLength(100);
    expect(first.items[0]!.name).toBe('Title 00000');
    expect(first.items[99]!.name).toBe('Title 00099');
    const tail = await query({ parentId: big.id, startIndex: 9_950, limit: 1000 });
    expect(tail).toMatchObject({ totalRecordCount: total, startIndex: 9_950 });
    expect(tail.items).toHaveLength(50);
    expect(tail.items.at(-1)!.name).toBe('Title 09999');
    const newest = await query({ parentId: big.id, sortBy: ['dateCreated'], sortOrder: 'desc', limit: 3 });
    expect(newest.items.map((i) => i.name)).toEqual(['Title 09999', 'Title 09998', 'Title 09997']);
    const longest = await query({
      parentId: big.id,
      recursive: true,
      sortBy: ['runtime'],
      sortOrder: 'desc',
      limit: 1,
    });
    expect(longest.items.map((i) => i.name)).toEqual(['Title 09999']);

    expect((await query({ parentId: big.id, isPlayed: false, limit: 1 })).totalRecordCount).toBe(total - 3);
    expect((await query({ parentId: big.id, isPlayed: true })).items.map((i) => i.name)).toEqual([
      'Title 00000',
      'Title 00001',
      'Title 00002',
    ]);
    expect((await query({ parentId: big.id, isFavorite: true })).items.map((i) => i.name)).toEqual([
      'Title 09999',
    ]);
    expect((await query({ parentId: big.id, isResumable: true })).totalRecordCount).toBe(1);
    // Years 1950 + (n % 70): 1960 holds 10,000 / 70 rounded up or down.
    expect((await query({ parentId: big.id, years: [1960], limit: 0 })).totalRecordCount).toBe(143);
    expect((await query({ parentId: big.id, searchTerm: 'title 012', limit: 5 })).totalRecordCount).toBe(100);
    expect((await query({ recursive: true, includeKinds: ['movie'], limit: 1 })).totalRecordCount).toBe(
      total + 4,
    );
    const views = await env.api<PlaybackViewsResponse>('GET', `${BASE}/views?userId=${USER}`);
    expect(views.body.views.find((view) => view.id === big.id)).toMatchObject({
      itemCount: total,
      imageItemId: null,
    });
    expect((await list('latest', { parentId: big.id, limit: '1' })).totalRecordCount).toBe(total);
  });
});
