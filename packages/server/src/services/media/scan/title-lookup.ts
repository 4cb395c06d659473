import type { Logger } from '../../../platform/logger.js';
import {
  ProviderError,
  type MetadataProvider,
  type ProviderMediaType,
  type ProviderTitle,
} from '../metadata/metadata-provider.js';

/** What a scan knows of a title before asking: from its .nfo or its name. */
export interface KnownTitle {
  title: string;
  year: number | null;
  tmdbId: string | null;
  imdbId: string | null;
}

/**
 * The metadata provider as one scan uses it: each title is asked once per scan, and once the provider has
 * refused the API key it is not asked again (the scan notes the refusal once).
 */
export class TitleLookup {
  private refused = false;
  private readonly cache = new Map<string, Promise<ProviderTitle | null>>();

  constructor(
    private readonly provider: MetadataProvider | null,
    private readonly scan: {
      signal: AbortSignal;
      logger: Logger;
      checkAbort(): void;
      problem(message: string): void;
    },
  ) {}

  /** By TMDB id, else by IMDb id, else by title and year; null when nothing (or no provider) answers. */
  lookup(type: ProviderMediaType, known: KnownTitle): Promise<ProviderTitle | null> {
    const provider = this.provider;
    if (!provider || this.refused) return Promise.resolve(null);
    const key = `${type}|${known.tmdbId ?? ''}|${known.imdbId ?? ''}|${known.title.toLowerCase()}|${known.year ?? ''}`;
    let pending = this.cache.get(key);
    if (!pending) {
      pending = this.ask(provider, type, known);
      this.cache.set(key, pending);
    }
    return pending;
  }

  private async ask(
    provider: MetadataProvider,
    type: ProviderMediaType,
    known: KnownTitle,
  ): Promise<ProviderTitle | null> {
    const { signal } = this.scan;
    try {
      if (known.tmdbId) {
        const found = await provider.details(type, known.tmdbId, signal);
        if (found) return found;
      }
      if (known.imdbId) {
        const found = await provider.findByImdbId(type, known.imdbId, signal);
        if (found) return (await provider.details(type, found.tmdbId, signal)) ?? found;
      }
      const hits = await provider.search(type, { title: known.title, year: known.year }, signal);
      const hit = hits.find((candidate) => known.year === null || candidate.year === known.year) ?? hits[0];
      if (!hit) return null;
      return (await provider.details(type, hit.tmdbId, signal)) ?? hit;
    } catch (error) {
      this.scan.checkAbort();
      if (error instanceof ProviderError && (error.status === 401 || error.status === 403)) {
        if (!this.refused) this.scan.problem(`metadata provider refused the API key (${error.message})`);
        this.refused = true;
      } else {
        this.scan.logger.warn(
          { title: known.title, err: (error as Error).message },
          'metadata provider lookup failed',
        );
      }
      return null;
    }
  }
}
