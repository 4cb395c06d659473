import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HttpMetadataProvider,
  ProviderError,
  retryAfterMs,
} from '../../../src/services/media/metadata/metadata-provider.js';
import { startFakeTmdb, type FakeTmdb } from './support/fake-tmdb.js';

const containsInvalidKey = expect.stringContaining('Invalid API key') as unknown as string;

describe('the TMDB-like metadata provider over HTTP', () => {
  let tmdb: FakeTmdb;
  const waits: number[] = [];
  const provider = (apiKey?: string) =>
    new HttpMetadataProvider({
      baseUrl: tmdb.baseUrl,
      apiKey: apiKey ?? tmdb.apiKey,
      imageBaseUrl: 'https://image.example/t/p/w500/',
      language: 'en-US',
      sleep: async (ms) => {
        waits.push(ms);
      },
    });

  beforeAll(async () => {
    tmdb = await startFakeTmdb();
  });
  afterAll(async () => {
    await tmdb.close();
  });

  it('searches movies by title and year and reads their details', async () => {
    const hits = await provider().search('movie', { title: 'The Matrix', year: 1999 });
    expect(hits.map((hit) => hit.tmdbId)).toEqual(['603']);
    expect(hits[0]).toMatchObject({
      title: 'The Matrix',
      year: 1999,
      imdbId: null,
      posterPath: '/matrixPoster.jpg',
    });
    expect(tmdb.requests.at(-1)).toContain('/3/search/movie?query=The+Matrix');
    expect(tmdb.requests.at(-1)).toContain('year=1999');
    expect(tmdb.requests.at(-1)).toContain('language=en-US');
    const details = await provider().details('movie', '603');
    expect(details).toEqual({
      tmdbId: '603',
      title: 'The Matrix',
      originalTitle: 'The Matrix',
      year: 1999,
      releaseDate: '1999-03-31',
      overview: 'Provider overview of The Matrix.',
      posterPath: '/matrixPoster.jpg',
      posterUrl: 'https://image.example/t/p/w500/matrixPoster.jpg',
      imdbId: 'tt0133093',
    });
  });

  it('reads series with their external ids, and finds titles by IMDb id', async () => {
    expect(await provider().search('series', { title: 'show', year: 2020 })).toHaveLength(1);
    expect(await provider().details('series', '90001')).toMatchObject({
      title: 'Show',
      originalTitle: 'Show (provider original)',
      imdbId: 'tt9000001',
      releaseDate: '2020-02-28',
    });
    expect(tmdb.requests.at(-1)).toContain('append_to_response=external_ids');
    expect(await provider().findByImdbId('movie', 'tt2543164')).toMatchObject({
      tmdbId: '329865',
      title: 'Arrival',
      imdbId: 'tt2543164',
    });
    expect(await provider().findByImdbId('series', 'tt2543164')).toBeNull();
  });

  it('answers null for an unknown id', async () => {
    expect(await provider().details('movie', '999999')).toBeNull();
  });

  it('refuses with the provider message when the API key is wrong', async () => {
    const failure = await provider('wrong-key')
      .search('movie', { title: 'Heat' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({ status: 401, message: containsInvalidKey });
  });

  it('waits as Retry-After says on 429 and then succeeds; gives up after its retries', async () => {
    waits.length = 0;
    tmdb.throttle(2, 2);
    expect(await provider().details('movie', '949')).toMatchObject({ title: 'Heat' });
    expect(waits).toEqual([2000, 2000]);
    tmdb.throttle(10, 1);
    const failure = await provider()
      .details('movie', '949')
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 429 });
    tmdb.throttle(0, 1);
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs(undefined)).toBeNull();
  });
});
