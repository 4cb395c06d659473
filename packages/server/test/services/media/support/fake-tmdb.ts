import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A faithful local stand-in for TMDB's v3 API (the real one cannot be reached here), with its JSON
 * shapes and error bodies:
 *   GET /3/search/movie?query&year     GET /3/search/tv?query&first_air_date_year
 *   GET /3/movie/{id}                  GET /3/tv/{id}?append_to_response=external_ids
 *   GET /3/find/{imdb_id}?external_source=imdb_id
 * The API key is checked (api_key query parameter or a bearer token); throttle() answers the next
 * requests with 429 and Retry-After, as TMDB does beyond its rate limit.
 */

export interface FakeMovie {
  id: number;
  title: string;
  original_title: string;
  release_date: string;
  overview: string;
  poster_path: string | null;
  imdb_id: string | null;
}

export interface FakeTv {
  id: number;
  name: string;
  original_name: string;
  first_air_date: string;
  overview: string;
  poster_path: string | null;
  imdb_id: string | null;
}

export interface FakeTmdb {
  /** e.g. http://127.0.0.1:1234/3 */
  baseUrl: string;
  apiKey: string;
  /** Requests served, as path + query (the api_key left out). */
  requests: string[];
  /** The next `count` requests get 429 with Retry-After: retryAfterSeconds. */
  throttle(count: number, retryAfterSeconds: number): void;
  close(): Promise<void>;
}

export const FAKE_MOVIES: FakeMovie[] = [
  {
    id: 949,
    title: 'Heat',
    original_title: 'Heat',
    release_date: '1995-12-15',
    overview: 'Provider overview of Heat.',
    poster_path: '/heatProviderPoster.jpg',
    imdb_id: 'tt0113277',
  },
  {
    id: 603,
    title: 'The Matrix',
    original_title: 'The Matrix',
    release_date: '1999-03-31',
    overview: 'Provider overview of The Matrix.',
    poster_path: '/matrixPoster.jpg',
    imdb_id: 'tt0133093',
  },
  {
    id: 604,
    title: 'The Matrix Reloaded',
    original_title: 'The Matrix Reloaded',
    release_date: '2003-05-15',
    overview: 'Not the one.',
    poster_path: '/reloaded.jpg',
    imdb_id: 'tt0234215',
  },
  {
    id: 329865,
    title: 'Arrival',
    original_title: 'Arrival',
    release_date: '2016-11-10',
    overview: 'Provider overview of Arrival.',
    poster_path: '/arrivalPoster.jpg',
    imdb_id: 'tt2543164',
  },
];

export const FAKE_TV: FakeTv[] = [
  {
    id: 90001,
    name: 'Show',
    original_name: 'Show (provider original)',
    first_air_date: '2020-02-28',
    overview: 'Provider overview of Show.',
    poster_path: '/showPoster.jpg',
    imdb_id: 'tt9000001',
  },
];

const searchMovie = (movie: FakeMovie) => ({
  adult: false,
  backdrop_path: null,
  genre_ids: [],
  id: movie.id,
  original_language: 'en',
  original_title: movie.original_title,
  overview: movie.overview,
  popularity: 10.5,
  poster_path: movie.poster_path,
  release_date: movie.release_date,
  title: movie.title,
  video: false,
  vote_average: 7.9,
  vote_count: 1000,
});
const movieDetails = (movie: FakeMovie) => ({
  ...searchMovie(movie),
  belongs_to_collection: null,
  budget: 0,
  genres: [],
  homepage: '',
  imdb_id: movie.imdb_id,
  origin_country: ['US'],
  production_companies: [],
  revenue: 0,
  runtime: 120,
  status: 'Released',
  tagline: '',
});
const searchTv = (tv: FakeTv) => ({
  adult: false,
  backdrop_path: null,
  genre_ids: [],
  id: tv.id,
  origin_country: ['US'],
  original_language: 'en',
  original_name: tv.original_name,
  overview: tv.overview,
  popularity: 5.1,
  poster_path: tv.poster_path,
  first_air_date: tv.first_air_date,
  name: tv.name,
  vote_average: 8.1,
  vote_count: 300,
});
const tvDetails = (tv: FakeTv, withExternalIds: boolean) => ({
  ...searchTv(tv),
  episode_run_time: [],
  genres: [],
  homepage: '',
  in_production: false,
  number_of_episodes: 4,
  number_of_seasons: 2,
  seasons: [],
  status: 'Ended',
  type: 'Scripted',
  ...(withExternalIds ? { external_ids: { imdb_id: tv.imdb_id, tvdb_id: null } } : {}),
});

const matches = (query: string, ...names: string[]) =>
  names.some((name) => name.toLowerCase().includes(query.trim().toLowerCase()));

export async function startFakeTmdb(apiKey = 'fake-tmdb-key-0123456789'): Promise<FakeTmdb> {
  const requests: string[] = [];
  let throttled = 0;
  let retryAfter = 1;

  const send = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    response.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers });
    response.end(JSON.stringify(body));
  };
  const notFound = (response: ServerResponse) =>
    send(response, 404, {
      success: false,
      status_code: 34,
      status_message: 'The resource you requested could not be found.',
    });

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const given =
      url.searchParams.get('api_key') ?? /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    url.searchParams.delete('api_key');
    requests.push(`${url.pathname}${url.search}`);
    if (given !== apiKey) {
      return send(response, 401, {
        success: false,
        status_code: 7,
        status_message: 'Invalid API key: You must be granted a valid key.',
      });
    }
    if (throttled > 0) {
      throttled -= 1;
      return send(
        response,
        429,
        {
          success: false,
          status_code: 25,
          status_message: 'Your request count (41) is over the allowed limit of (40).',
        },
        { 'retry-after': String(retryAfter) },
      );
    }
    const path = url.pathname.replace(/^\/3/, '');
    const query = url.searchParams.get('query') ?? '';
    if (path === '/search/movie') {
      const year = url.searchParams.get('year') ?? url.searchParams.get('primary_release_year');
      const results = FAKE_MOVIES.filter(
        (movie) =>
          matches(query, movie.title, movie.original_title) && (!year || movie.release_date.startsWith(year)),
      ).map(searchMovie);
      return send(response, 200, { page: 1, results, total_pages: 1, total_results: results.length });
    }
    if (path === '/search/tv') {
      const year = url.searchParams.get('first_air_date_year') ?? url.searchParams.get('year');
      const results = FAKE_TV.filter(
        (tv) => matches(query, tv.name, tv.original_name) && (!year || tv.first_air_date.startsWith(year)),
      ).map(searchTv);
      return send(response, 200, { page: 1, results, total_pages: 1, total_results: results.length });
    }
    const movie = /^\/movie\/(\d+)$/.exec(path);
    if (movie) {
      const found = FAKE_MOVIES.find((candidate) => candidate.id === Number(movie[1]));
      return found ? send(response, 200, movieDetails(found)) : notFound(response);
    }
    const tv = /^\/tv\/(\d+)$/.exec(path);
    if (tv) {
      const found = FAKE_TV.find((candidate) => candidate.id === Number(tv[1]));
      const external = (url.searchParams.get('append_to_response') ?? '').split(',').includes('external_ids');
      return found ? send(response, 200, tvDetails(found, external)) : notFound(response);
    }
    const find = /^\/find\/(tt\d+)$/.exec(path);
    if (find && url.searchParams.get('external_source') === 'imdb_id') {
      return send(response, 200, {
        movie_results: FAKE_MOVIES.filter((candidate) => candidate.imdb_id === find[1]).map(searchMovie),
        person_results: [],
        tv_results: FAKE_TV.filter((candidate) => candidate.imdb_id === find[1]).map(searchTv),
        tv_episode_results: [],
        tv_season_results: [],
      });
    }
    return notFound(response);
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/3`,
    apiKey,
    requests,
    throttle: (count, seconds) => {
      throttled = count;
      retryAfter = seconds;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
