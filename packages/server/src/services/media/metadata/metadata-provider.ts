import { request } from 'undici';
import { z } from 'zod';

export type ProviderMediaType = 'movie' | 'series';

/** One search hit or the details of a title, as a TMDB-like provider describes it. */
export interface ProviderTitle {
  tmdbId: string;
  title: string;
  originalTitle: string | null;
  year: number | null;
  releaseDate: string | null;
  overview: string | null;
  /** The provider's image path, e.g. `/abc.jpg`. */
  posterPath: string | null;
  /** Absolute image URL built from the configured image base. */
  posterUrl: string | null;
  /** Known from details (and from a lookup by IMDb id), null in search hits. */
  imdbId: string | null;
}

/** A source of descriptive metadata (TMDB and look-alikes). */
export interface MetadataProvider {
  search(
    type: ProviderMediaType,
    query: { title: string; year?: number | null },
    signal?: AbortSignal,
  ): Promise<ProviderTitle[]>;
  /** Null when the provider has no such title. */
  details(type: ProviderMediaType, tmdbId: string, signal?: AbortSignal): Promise<ProviderTitle | null>;
  /** The title with this IMDb id, or null. */
  findByImdbId(type: ProviderMediaType, imdbId: string, signal?: AbortSignal): Promise<ProviderTitle | null>;
}

/** The provider refused the request (bad key, rate limit outlasting the retries, server failure). */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

export interface HttpMetadataProviderOptions {
  /** e.g. https://api.themoviedb.org/3 */
  baseUrl: string;
  /** A v3 API key (sent as api_key) or a v4 read access token (a JWT, sent as a bearer token). */
  apiKey: string;
  language?: string | null;
  /** e.g. https://image.tmdb.org/t/p/original */
  imageBaseUrl: string;
  /** Attempts after a 429 (each waits Retry-After, capped by maxRetryWaitMs). */
  maxRetries?: number;
  maxRetryWaitMs?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const movieHit = z.object({
  id: z.number(),
  title: z.string().optional(),
  original_title: z.string().nullish(),
  release_date: z.string().nullish(),
  overview: z.string().nullish(),
  poster_path: z.string().nullish(),
  imdb_id: z.string().nullish(),
});
const tvHit = z.object({
  id: z.number(),
  name: z.string().optional(),
  original_name: z.string().nullish(),
  first_air_date: z.string().nullish(),
  overview: z.string().nullish(),
  poster_path: z.string().nullish(),
  external_ids: z.object({ imdb_id: z.string().nullish() }).nullish(),
});
const searchAnswer = z.object({ results: z.array(z.unknown()) });
const findAnswer = z.object({
  movie_results: z.array(z.unknown()).default([]),
  tv_results: z.array(z.unknown()).default([]),
});

const DEFAULT_SLEEP = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds or an HTTP date, as Retry-After carries it. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** TMDB's v3 HTTP API: /search/movie, /search/tv, /movie/{id}, /tv/{id}, /find/{imdb id}. */
export class HttpMetadataProvider implements MetadataProvider {
  private readonly base: string;

  constructor(private readonly options: HttpMetadataProviderOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
  }

  private async get(path: string, params: Record<string, string>, signal?: AbortSignal): Promise<unknown> {
    const query = new URLSearchParams(params);
    if (this.options.language) query.set('language', this.options.language);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey.startsWith('eyJ')) headers.authorization = `Bearer ${this.options.apiKey}`;
    else query.set('api_key', this.options.apiKey);
    const url = `${this.base}${path}?${query.toString()}`;
    const maxRetries = this.options.maxRetries ?? 3;
    const sleep = this.options.sleep ?? DEFAULT_SLEEP;
    for (let attempt = 0; ; attempt++) {
      let response;
      try {
        response = await request(url, {
          headers,
          signal,
          headersTimeout: this.options.timeoutMs ?? 15_000,
          bodyTimeout: this.options.timeoutMs ?? 15_000,
        });
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new ProviderError(`metadata provider did not answer: ${(error as Error).message}`, null);
      }
      if (response.statusCode === 429 && attempt < maxRetries) {
        await response.body.dump();
        const wait = Math.min(
          retryAfterMs(response.headers['retry-after']) ?? 1_000,
          this.options.maxRetryWaitMs ?? 10_000,
        );
        await sleep(wait);
        continue;
      }
      if (response.statusCode === 404) {
        await response.body.dump();
        return null;
      }
      if (response.statusCode !== 200) {
        const body = (await response.body.json().catch(() => null)) as { status_message?: unknown } | null;
        const reason =
          typeof body?.status_message === 'string' ? body.status_message : `status ${response.statusCode}`;
        throw new ProviderError(`metadata provider refused ${path}: ${reason}`, response.statusCode);
      }
      return response.body.json();
    }
  }

  private image(path: string | null | undefined): string | null {
    return path
      ? `${this.options.imageBaseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`
      : null;
  }

  private toTitle(type: ProviderMediaType, raw: unknown): ProviderTitle | null {
    if (type === 'movie') {
      const parsed = movieHit.safeParse(raw);
      if (!parsed.success || !parsed.data.title) return null;
      const hit = parsed.data;
      return {
        tmdbId: String(hit.id),
        title: hit.title!,
        originalTitle: hit.original_title || null,
        releaseDate: validDate(hit.release_date),
        year: yearOf(hit.release_date),
        overview: hit.overview || null,
        posterPath: hit.poster_path || null,
        posterUrl: this.image(hit.poster_path),
        imdbId: hit.imdb_id || null,
      };
    }
    const parsed = tvHit.safeParse(raw);
    if (!parsed.success || !parsed.data.name) return null;
    const hit = parsed.data;
    return {
      tmdbId: String(hit.id),
      title: hit.name!,
      originalTitle: hit.original_name || null,
      releaseDate: validDate(hit.first_air_date),
      year: yearOf(hit.first_air_date),
      overview: hit.overview || null,
      posterPath: hit.poster_path || null,
      posterUrl: this.image(hit.poster_path),
      imdbId: hit.external_ids?.imdb_id || null,
    };
  }

  async search(
    type: ProviderMediaType,
    query: { title: string; year?: number | null },
    signal?: AbortSignal,
  ): Promise<ProviderTitle[]> {
    const params: Record<string, string> = { query: query.title, include_adult: 'false', page: '1' };
    if (query.year) params[type === 'movie' ? 'year' : 'first_air_date_year'] = String(query.year);
    const answer = searchAnswer.safeParse(
      await this.get(type === 'movie' ? '/search/movie' : '/search/tv', params, signal),
    );
    if (!answer.success) return [];
    return answer.data.results
      .map((raw) => this.toTitle(type, raw))
      .filter((hit): hit is ProviderTitle => !!hit);
  }

  async details(
    type: ProviderMediaType,
    tmdbId: string,
    signal?: AbortSignal,
  ): Promise<ProviderTitle | null> {
    if (!/^\d{1,10}$/.test(tmdbId)) return null;
    const raw = await this.get(
      `/${type === 'movie' ? 'movie' : 'tv'}/${tmdbId}`,
      type === 'series' ? { append_to_response: 'external_ids' } : {},
      signal,
    );
    return raw === null ? null : this.toTitle(type, raw);
  }

  async findByImdbId(
    type: ProviderMediaType,
    imdbId: string,
    signal?: AbortSignal,
  ): Promise<ProviderTitle | null> {
    if (!/^tt\d{5,10}$/.test(imdbId)) return null;
    const raw = await this.get(`/find/${imdbId}`, { external_source: 'imdb_id' }, signal);
    const answer = findAnswer.safeParse(raw);
    if (!answer.success) return null;
    const first = (type === 'movie' ? answer.data.movie_results : answer.data.tv_results)[0];
    const title = first === undefined ? null : this.toTitle(type, first);
    return title ? { ...title, imdbId } : null;
  }
}

function validDate(value: string | null | undefined): string | null {
  return value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : null;
}

function yearOf(value: string | null | undefined): number | null {
  const date = validDate(value);
  return date ? Number(date.slice(0, 4)) : null;
}
