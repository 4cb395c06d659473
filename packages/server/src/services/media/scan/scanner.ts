import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import type { Kysely } from 'kysely';
import type { MediaInfo, ProbeToolStatus } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { LibrariesRepository, LibraryRow, SourceRow } from '../libraries/libraries.repository.js';
import {
  planLibrary,
  type FileRef,
  type LibraryPlan,
  type PlannedEpisode,
  type PlannedMovie,
  type PlannedSeason,
  type PlannedSeries,
} from './library-layout.js';
import type { IndexRow, ItemPatch, ItemsRepository, NewItemRow } from '../items/items.repository.js';
import type { MediaDatabase, StoredImages } from '../media.db.js';
import { MEDIA_ADDED, type MediaEventsRepository, type NewMediaEvent } from '../events/media-events.repository.js';
import {
  ProviderError,
  type MetadataProvider,
  type ProviderMediaType,
  type ProviderTitle,
} from '../metadata/metadata-provider.js';
import { sortTitle } from '../metadata/naming.js';
import { NFO_MAX_BYTES, parseNfo, type NfoData } from '../metadata/nfo.js';
import type { ScanRow, ScansRepository } from './scans.repository.js';
import { scanScope } from './scan-scope.js';
import { StorageNotFoundError, type StorageGateway } from '../storage/storage-gateway.js';

export interface ScannerDeps {
  db: Kysely<MediaDatabase>;
  libraries: LibrariesRepository;
  items: ItemsRepository;
  scans: ScansRepository;
  events: MediaEventsRepository;
  storage: StorageGateway;
  /** The metadata provider in force (null while not configured). */
  provider: () => Promise<MetadataProvider | null>;
  clock: Clock;
  logger: Logger;
  /** Items prepared and written together (default 100). */
  batchSize?: number;
  /** Items prepared at once (each reads its .nfo, probes and asks the provider; default 8). */
  concurrency?: number;
}

/** A scan stopped because its instance is shutting down; it goes back to the queue. */
export class ScanAborted extends Error {}

/** The image route of the media service, used as the URL of local artwork. */
export const imageUrl = (itemId: string, type: string) => `/api/media/items/${itemId}/images/${type}`;

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

async function mapPool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  });
  await Promise.all(workers);
  return results;
}

interface Described {
  title: string;
  originalTitle: string | null;
  year: number | null;
  releaseDate: string | null;
  overview: string | null;
  tmdbId: string | null;
  imdbId: string | null;
  providerPosterPath: string | null;
  providerPosterUrl: string | null;
}

/**
 * Merges what is known about a title: the .nfo wins, then the provider, then the file or folder name.
 */
export function describe(
  nfo: NfoData | null,
  provider: ProviderTitle | null,
  parsed: { title: string; year: number | null; tmdbId: string | null; imdbId: string | null },
): Described {
  const releaseDate = nfo?.releaseDate ?? provider?.releaseDate ?? null;
  return {
    title: nfo?.title ?? provider?.title ?? parsed.title,
    originalTitle: nfo?.originalTitle ?? provider?.originalTitle ?? null,
    year:
      nfo?.year ?? provider?.year ?? parsed.year ?? (releaseDate ? Number(releaseDate.slice(0, 4)) : null),
    releaseDate,
    overview: nfo?.plot ?? provider?.overview ?? null,
    tmdbId: nfo?.tmdbId ?? parsed.tmdbId ?? provider?.tmdbId ?? null,
    imdbId: nfo?.imdbId ?? parsed.imdbId ?? provider?.imdbId ?? null,
    providerPosterPath: provider?.posterPath ?? null,
    providerPosterUrl: provider?.posterUrl ?? null,
  };
}

function storedImages(images: Partial<Record<'poster' | 'fanart' | 'thumb', FileRef>>): StoredImages {
  const stored: StoredImages = {};
  for (const [type, ref] of Object.entries(images) as ['poster' | 'fanart' | 'thumb', FileRef][]) {
    stored[type] = { path: ref.path, size: ref.size, mtime: ref.mtime };
  }
  return stored;
}

const unchanged = (row: IndexRow, file: FileRef, sidecarSig: string) =>
  row.file_size === file.size &&
  row.file_mtime !== null &&
  row.file_mtime.getTime() === Date.parse(file.mtime) &&
  row.sidecar_sig === sidecarSig;

interface SourceWalk {
  source: SourceRow;
  files: FileRef[] | null;
  /** Items below this path may be removed when not found (null: the whole source). */
  removalScope: string | null;
  plan?: LibraryPlan;
}

/** One run of one scan (manual scan of a library or webhook task on a subtree). */
export class ScanExecution {
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly counters = {
    files_seen: 0,
    files_total: 0,
    files_skipped: 0,
    items_added: 0,
    items_updated: 0,
    items_removed: 0,
  };
  private readonly problems: string[] = [];
  /** A source could not be scanned (walk failed, or it looked unmounted). */
  private sourceFailed = false;
  private provider: MetadataProvider | null = null;
  private providerRefused = false;
  private readonly providerCache = new Map<string, Promise<ProviderTitle | null>>();
  private readonly probeAvailable = new Map<string, boolean>();
  private probeTools: ProbeToolStatus[] = [];
  private lastProgressAt = 0;
  private library!: LibraryRow;

  constructor(
    private readonly deps: ScannerDeps,
    private readonly scan: ScanRow,
    private readonly signal: AbortSignal,
  ) {
    this.batchSize = deps.batchSize ?? 100;
    this.concurrency = deps.concurrency ?? 8;
  }

  private now(): Date {
    return new Date(this.deps.clock.now());
  }

  private checkAbort(): void {
    if (this.signal.aborted) throw new ScanAborted('scan interrupted by shutdown');
  }

  /** Counts a file as looked at once it is prepared, and reports progress now and then. */
  private async seen<T>(preparing: Promise<T>): Promise<T> {
    const result = await preparing;
    this.counters.files_seen += 1;
    await this.progress();
    return result;
  }

  private async progress(force = false, phase?: ScanRow['phase']): Promise<void> {
    const at = this.deps.clock.now();
    if (!force && phase === undefined && at - this.lastProgressAt < 250) return;
    this.lastProgressAt = at;
    await this.deps.scans.progress(
      this.scan.id,
      { ...this.counters, ...(phase ? { phase } : {}), probe_tools: JSON.stringify(this.probeTools) },
      new Date(at),
    );
  }

  async run(): Promise<void> {
    const { libraries, scans, events } = this.deps;
    const library = await libraries.get(this.scan.library_id);
    if (!library) {
      await scans.finish(this.scan.id, 'cancelled', 'the library was deleted', this.now());
      return;
    }
    this.library = library;
    let sources = await libraries.sourcesOf([library.id]);
    if (this.scan.scope_source_id)
      sources = sources.filter((source) => source.id === this.scan.scope_source_id);
    if (sources.length === 0) {
      await scans.finish(this.scan.id, 'cancelled', 'the library source was removed', this.now());
      return;
    }
    this.provider = await this.deps.provider();

    for (const nodeId of new Set(sources.map((source) => source.node_id))) {
      try {
        const tool = await this.deps.storage.probeTool(nodeId, this.signal);
        this.probeTools.push({ nodeId, reachable: true, available: tool.available, version: tool.version });
        this.probeAvailable.set(nodeId, tool.available);
      } catch {
        this.probeTools.push({ nodeId, reachable: false, available: false, version: null });
        this.probeAvailable.set(nodeId, false);
      }
    }
    await this.progress(true, 'walking');

    const walks: SourceWalk[] = [];
    for (const source of sources) walks.push(await this.walk(source));
    for (const walk of walks) {
      if (!walk.files) continue;
      const include = walk.removalScope === null ? undefined : inScope(walk.removalScope);
      walk.plan = planLibrary(library.type, walk.source.path, walk.files, include);
      this.counters.files_total +=
        walk.plan.movies.length + walk.plan.episodes.length + walk.plan.skipped.length;
    }
    this.checkAbort();
    await this.progress(true, 'processing');

    const seen = new Map<string, Set<string>>();
    for (const walk of walks) {
      if (!walk.plan) continue;
      seen.set(walk.source.id, await this.processSource(walk.source, walk.plan));
    }

    await this.progress(true, 'removing');
    for (const walk of walks) {
      const keys = seen.get(walk.source.id);
      if (!walk.files || !keys) continue;
      await this.remove(walk, keys);
    }

    const summary = await events.completeScan(this.scan.id);
    await this.progress(true);
    const failed = this.sourceFailed || walks.some((walk) => !walk.files);
    this.deps.logger.info(
      { scanId: this.scan.id, libraryId: library.id, ...this.counters, events: summary.newItems },
      'library scan finished',
    );
    await scans.finish(
      this.scan.id,
      failed ? 'failed' : 'succeeded',
      this.problems.length > 0 ? this.problems.join('; ').slice(0, 2000) : null,
      this.now(),
    );
  }

  private async walk(source: SourceRow): Promise<SourceWalk> {
    const scope = this.scan.scope_source_id === source.id ? this.scan.scope_path : null;
    const { walkRoot, removalScope } = scanScope(source.path, scope);
    const files: FileRef[] = [];
    try {
      let count = 0;
      for await (const entry of this.deps.storage.walk(
        source.node_id,
        source.mount_id,
        walkRoot,
        this.signal,
      )) {
        if (entry.type === 'file') {
          files.push({ path: `/${entry.path.replace(/^\/+/, '')}`, size: entry.size, mtime: entry.mtime });
        }
        if (++count % 2000 === 0) {
          this.checkAbort();
          await yieldToRequests();
        }
      }
    } catch (error) {
      this.checkAbort();
      // A subtree that no longer exists is empty: what was in it is removed. A missing source is a failure.
      if (error instanceof StorageNotFoundError && walkRoot !== source.path)
        return { source, files: [], removalScope };
      this.problems.push(
        `cannot read ${source.node_id}:${source.mount_id}:${walkRoot}: ${(error as Error).message}`,
      );
      return { source, files: null, removalScope };
    }
    return { source, files, removalScope };
  }

  private async remove(walk: SourceWalk, seenKeys: Set<string>): Promise<void> {
    const { items } = this.deps;
    const index = await items.indexForSource(walk.source.id);
    const within = walk.removalScope === null ? () => true : inScope(walk.removalScope);
    const gone = index.filter(
      (row) =>
        (row.kind === 'movie' || row.kind === 'episode') && within(row.path) && !seenKeys.has(row.item_key),
    );
    if (walk.removalScope === null && walk.files!.length === 0 && gone.length > 0) {
      // An empty source folder is far more often an unmounted drive than a deleted library.
      this.sourceFailed = true;
      this.problems.push(
        `${walk.source.node_id}:${walk.source.mount_id}:${walk.source.path} is empty; kept its ${gone.length} items`,
      );
      return;
    }
    this.counters.items_removed += await items.deleteIds(gone.map((row) => row.id));
    this.counters.items_removed += await items.deleteEmptyContainers(walk.source.id);
  }

  private async processSource(source: SourceRow, plan: LibraryPlan): Promise<Set<string>> {
    const index = new Map(
      (await this.deps.items.indexForSource(source.id)).map((row) => [row.item_key, row]),
    );
    const seenKeys = new Set<string>();
    const full = this.scan.mode === 'full';

    this.counters.files_skipped += plan.skipped.length;
    this.counters.files_seen += plan.skipped.length;

    const movies = plan.movies.filter((movie) => {
      seenKeys.add(movie.key);
      const row = index.get(movie.key);
      if (!full && row && unchanged(row, movie.file, movie.sidecarSig)) {
        this.counters.files_seen += 1;
        return false;
      }
      return true;
    });
    for (let start = 0; start < movies.length; start += this.batchSize) {
      this.checkAbort();
      const batch = movies.slice(start, start + this.batchSize);
      const prepared = await mapPool(batch, this.concurrency, (movie) =>
        this.seen(this.prepareMovie(source, movie)),
      );
      await this.write(
        source,
        batch.map((movie, i) => {
          const { described, mediaInfo } = prepared[i]!;
          const existing = index.get(movie.key);
          const id = existing?.id ?? randomUUID();
          return {
            id,
            existing: !!existing,
            kind: 'movie' as const,
            key: movie.key,
            values: this.movieValues(movie, described, mediaInfo),
            event: () =>
              this.event({ id, type: 'movie', described, images: movie.images }, null, id, movie.file.path),
          };
        }),
      );
      await this.progress();
      await yieldToRequests();
    }
    await this.progress();

    // Series and seasons first (episodes hang below them), then the episodes.
    const episodes = plan.episodes.filter((episode) => {
      seenKeys.add(episode.key);
      const row = index.get(episode.key);
      if (!full && row && unchanged(row, episode.file, episode.sidecarSig)) {
        this.counters.files_seen += 1;
        return false;
      }
      return true;
    });
    const seriesRows = new Map<string, { id: string; described: Described; images: StoredImages }>();
    for (const series of plan.series.values()) {
      seenKeys.add(series.key);
      this.checkAbort();
      seriesRows.set(series.key, await this.ensureSeries(source, series, index, full));
    }
    const seasonIds = new Map<string, string>();
    for (const season of plan.seasons.values()) {
      seenKeys.add(season.key);
      const series = seriesRows.get(season.seriesKey)!;
      seasonIds.set(season.key, await this.ensureSeason(source, season, series.id, index, full));
    }
    for (let start = 0; start < episodes.length; start += this.batchSize) {
      this.checkAbort();
      const batch = episodes.slice(start, start + this.batchSize);
      const prepared = await mapPool(batch, this.concurrency, (episode) =>
        this.seen(this.prepareEpisode(source, episode)),
      );
      await this.write(
        source,
        batch.map((episode, i) => {
          const { nfo, mediaInfo } = prepared[i]!;
          const series = seriesRows.get(episode.seriesKey)!;
          const existing = index.get(episode.key);
          const id = existing?.id ?? randomUUID();
          const values = this.episodeValues(
            episode,
            nfo,
            mediaInfo,
            seasonIds.get(episode.seasonKey)!,
            series.id,
          );
          return {
            id,
            existing: !!existing,
            kind: 'episode' as const,
            key: episode.key,
            values,
            event: () =>
              this.event(
                { id: series.id, type: 'series', described: series.described, images: series.images },
                {
                  seasonNumber: episode.seasonNumber,
                  episodeNumber: episode.episodeNumber,
                  name: values.title!,
                },
                id,
                episode.file.path,
              ),
          };
        }),
      );
      await this.progress();
      await yieldToRequests();
    }
    await this.progress();
    return seenKeys;
  }

  /** Writes a batch of prepared items in one transaction, with the events of the new ones. */
  private async write(
    source: SourceRow,
    writes: {
      id: string;
      existing: boolean;
      kind: NewItemRow['kind'];
      key: string;
      values: ItemPatch;
      event: () => NewMediaEvent;
    }[],
  ): Promise<void> {
    const inserts = writes.filter((write) => !write.existing);
    const updates = writes.filter((write) => write.existing);
    await this.deps.db.transaction().execute(async (trx) => {
      await this.deps.items.insertMany(
        trx,
        inserts.map((write) => this.newRow(write.id, source, write.kind, write.key, write.values)),
      );
      for (const write of updates) await this.deps.items.update(trx, write.id, write.values);
      await this.deps.events.insert(
        trx,
        inserts.map((write) => write.event()),
      );
    });
    this.counters.items_added += inserts.length;
    this.counters.items_updated += updates.length;
  }

  private newRow(
    id: string,
    source: SourceRow,
    kind: NewItemRow['kind'],
    key: string,
    values: ItemPatch,
  ): NewItemRow {
    const now = this.now();
    return {
      id,
      library_id: this.library.id,
      source_id: source.id,
      kind,
      item_key: key,
      path: '/',
      title: '',
      sort_title: '',
      created_at: now,
      updated_at: now,
      ...values,
    } as NewItemRow;
  }

  private movieValues(movie: PlannedMovie, described: Described, mediaInfo: MediaInfo | null): ItemPatch {
    return {
      path: movie.file.path,
      ...this.describedValues(described),
      file_size: movie.file.size,
      file_mtime: new Date(movie.file.mtime),
      sidecar_sig: movie.sidecarSig,
      media_info: mediaInfo ? JSON.stringify(mediaInfo) : null,
      subtitles: JSON.stringify(movie.subtitles),
      images: JSON.stringify(storedImages(movie.images)),
      updated_at: this.now(),
    };
  }

  private describedValues(described: Described): ItemPatch {
    return {
      title: described.title,
      sort_title: sortTitle(described.title),
      original_title: described.originalTitle,
      year: described.year,
      release_date: described.releaseDate,
      overview: described.overview,
      tmdb_id: described.tmdbId,
      imdb_id: described.imdbId,
      provider_poster_path: described.providerPosterPath,
      provider_poster_url: described.providerPosterUrl,
    };
  }

  private episodeValues(
    episode: PlannedEpisode,
    nfo: NfoData | null,
    mediaInfo: MediaInfo | null,
    seasonId: string,
    seriesId: string,
  ): ItemPatch {
    const title = nfo?.title ?? episode.name ?? `Episode ${episode.episodeNumber}`;
    const releaseDate = nfo?.releaseDate ?? null;
    return {
      parent_id: seasonId,
      series_id: seriesId,
      path: episode.file.path,
      title,
      sort_title: sortTitle(title),
      original_title: nfo?.originalTitle ?? null,
      year: nfo?.year ?? (releaseDate ? Number(releaseDate.slice(0, 4)) : null),
      release_date: releaseDate,
      overview: nfo?.plot ?? null,
      tmdb_id: nfo?.tmdbId ?? null,
      imdb_id: nfo?.imdbId ?? null,
      season_number: episode.seasonNumber,
      episode_number: episode.episodeNumber,
      episode_number_end: episode.episodeNumberEnd,
      file_size: episode.file.size,
      file_mtime: new Date(episode.file.mtime),
      sidecar_sig: episode.sidecarSig,
      media_info: mediaInfo ? JSON.stringify(mediaInfo) : null,
      subtitles: JSON.stringify(episode.subtitles),
      images: JSON.stringify(storedImages(episode.images)),
      updated_at: this.now(),
    };
  }

  private async ensureSeries(
    source: SourceRow,
    series: PlannedSeries,
    index: Map<string, IndexRow>,
    full: boolean,
  ): Promise<{ id: string; described: Described; images: StoredImages }> {
    const existing = index.get(series.key);
    if (existing && !full && existing.sidecar_sig === series.sidecarSig) {
      return { id: existing.id, described: describedOf(existing), images: existing.images };
    }
    const nfo = series.nfo ? await this.readNfo(source, series.nfo.path, 'tvshow') : null;
    const provider = await this.lookup('series', {
      title: nfo?.title ?? series.parsed.title,
      year: nfo?.year ?? series.parsed.year,
      tmdbId: nfo?.tmdbId ?? series.parsed.tmdbId,
      imdbId: nfo?.imdbId ?? series.parsed.imdbId,
    });
    const described = describe(nfo, provider, series.parsed);
    const images = storedImages(series.images);
    const values: ItemPatch = {
      path: series.path,
      ...this.describedValues(described),
      sidecar_sig: series.sidecarSig,
      images: JSON.stringify(images),
      updated_at: this.now(),
    };
    const id = existing?.id ?? randomUUID();
    if (existing) {
      await this.deps.items.update(this.deps.db, id, values);
      this.counters.items_updated += 1;
    } else {
      await this.deps.items.insert(this.deps.db, this.newRow(id, source, 'series', series.key, values));
      this.counters.items_added += 1;
    }
    return { id, described, images };
  }

  private async ensureSeason(
    source: SourceRow,
    season: PlannedSeason,
    seriesId: string,
    index: Map<string, IndexRow>,
    full: boolean,
  ): Promise<string> {
    const existing = index.get(season.key);
    if (existing && !full && existing.sidecar_sig === season.sidecarSig) return existing.id;
    const title = season.seasonNumber === 0 ? 'Specials' : `Season ${season.seasonNumber}`;
    const values: ItemPatch = {
      parent_id: seriesId,
      series_id: seriesId,
      path: season.path,
      title,
      sort_title: sortTitle(title),
      season_number: season.seasonNumber,
      sidecar_sig: season.sidecarSig,
      images: JSON.stringify(storedImages(season.images)),
      updated_at: this.now(),
    };
    const id = existing?.id ?? randomUUID();
    if (existing) {
      await this.deps.items.update(this.deps.db, id, values);
      this.counters.items_updated += 1;
    } else {
      await this.deps.items.insert(this.deps.db, this.newRow(id, source, 'season', season.key, values));
      this.counters.items_added += 1;
    }
    return id;
  }

  private async prepareMovie(
    source: SourceRow,
    movie: PlannedMovie,
  ): Promise<{ described: Described; mediaInfo: MediaInfo | null }> {
    const nfo = movie.nfo ? await this.readNfo(source, movie.nfo.path, 'movie') : null;
    const [provider, mediaInfo] = await Promise.all([
      this.lookup('movie', {
        title: nfo?.title ?? movie.parsed.title,
        year: nfo?.year ?? movie.parsed.year,
        tmdbId: nfo?.tmdbId ?? movie.parsed.tmdbId,
        imdbId: nfo?.imdbId ?? movie.parsed.imdbId,
      }),
      this.probe(source, movie.file),
    ]);
    return { described: describe(nfo, provider, movie.parsed), mediaInfo };
  }

  private async prepareEpisode(
    source: SourceRow,
    episode: PlannedEpisode,
  ): Promise<{ nfo: NfoData | null; mediaInfo: MediaInfo | null }> {
    const [nfo, mediaInfo] = await Promise.all([
      episode.nfo ? this.readNfo(source, episode.nfo.path, 'episodedetails') : Promise.resolve(null),
      this.probe(source, episode.file),
    ]);
    return { nfo, mediaInfo };
  }

  private async readNfo(source: SourceRow, path: string, root: NfoData['root']): Promise<NfoData | null> {
    try {
      const text = await this.deps.storage.readText(
        source.node_id,
        source.mount_id,
        path,
        NFO_MAX_BYTES,
        this.signal,
      );
      const parsed = parseNfo(text, root);
      if (!parsed) this.deps.logger.debug({ path }, 'nfo file is not a Kodi document; ignored');
      return parsed;
    } catch (error) {
      this.checkAbort();
      this.deps.logger.warn({ path, err: (error as Error).message }, 'cannot read nfo file');
      return null;
    }
  }

  private async probe(source: SourceRow, file: FileRef): Promise<MediaInfo | null> {
    if (!this.probeAvailable.get(source.node_id)) return null;
    try {
      const answer = await this.deps.storage.probe(source.node_id, source.mount_id, file.path, this.signal);
      if (!answer.available) {
        this.probeAvailable.set(source.node_id, false);
        return null;
      }
      if (!answer.result) return null;
      return {
        container: answer.result.container,
        durationSeconds: answer.result.durationSeconds,
        bitrate: answer.result.bitrate ?? null,
        size: answer.result.size ?? file.size,
        streams: answer.result.streams,
        ...(answer.result.chapters?.length ? { chapters: answer.result.chapters } : {}),
      };
    } catch (error) {
      this.checkAbort();
      this.deps.logger.warn({ path: file.path, err: (error as Error).message }, 'probe failed');
      return null;
    }
  }

  /** Asks the provider once per title and scan: by TMDB id, else by IMDb id, else by title and year. */
  private lookup(
    type: ProviderMediaType,
    known: { title: string; year: number | null; tmdbId: string | null; imdbId: string | null },
  ): Promise<ProviderTitle | null> {
    const provider = this.provider;
    if (!provider || this.providerRefused) return Promise.resolve(null);
    const key = `${type}|${known.tmdbId ?? ''}|${known.imdbId ?? ''}|${known.title.toLowerCase()}|${known.year ?? ''}`;
    let pending = this.providerCache.get(key);
    if (!pending) {
      pending = this.ask(provider, type, known);
      this.providerCache.set(key, pending);
    }
    return pending;
  }

  private async ask(
    provider: MetadataProvider,
    type: ProviderMediaType,
    known: { title: string; year: number | null; tmdbId: string | null; imdbId: string | null },
  ): Promise<ProviderTitle | null> {
    try {
      if (known.tmdbId) {
        const found = await provider.details(type, known.tmdbId, this.signal);
        if (found) return found;
      }
      if (known.imdbId) {
        const found = await provider.findByImdbId(type, known.imdbId, this.signal);
        if (found) return (await provider.details(type, found.tmdbId, this.signal)) ?? found;
      }
      const hits = await provider.search(type, { title: known.title, year: known.year }, this.signal);
      const hit = hits.find((candidate) => known.year === null || candidate.year === known.year) ?? hits[0];
      if (!hit) return null;
      return (await provider.details(type, hit.tmdbId, this.signal)) ?? hit;
    } catch (error) {
      this.checkAbort();
      if (error instanceof ProviderError && (error.status === 401 || error.status === 403)) {
        if (!this.providerRefused)
          this.problems.push(`metadata provider refused the API key (${error.message})`);
        this.providerRefused = true;
      } else {
        this.deps.logger.warn(
          { title: known.title, err: (error as Error).message },
          'metadata provider lookup failed',
        );
      }
      return null;
    }
  }

  private event(
    media: {
      id: string;
      type: 'movie' | 'series';
      described: Described;
      images: { poster?: FileRef } | StoredImages;
    },
    episode: { seasonNumber: number; episodeNumber: number; name: string } | null,
    itemId: string,
    filePath: string,
  ): NewMediaEvent {
    const localPoster = media.images.poster;
    return {
      id: randomUUID(),
      type: MEDIA_ADDED,
      occurred_at: this.now(),
      scan_id: this.scan.id,
      library_id: this.library.id,
      library_name: this.library.name,
      media_id: media.id,
      media_type: media.type,
      media_title: media.described.title,
      media_original_title: media.described.originalTitle,
      media_year: media.described.year,
      media_release_date: media.described.releaseDate,
      media_tmdb_id: media.described.tmdbId,
      media_imdb_id: media.described.imdbId,
      media_poster_path: media.described.providerPosterPath ?? localPoster?.path ?? null,
      media_poster_url:
        media.described.providerPosterUrl ?? (localPoster ? imageUrl(media.id, 'poster') : null),
      media_overview: media.described.overview,
      episode_season_number: episode?.seasonNumber ?? null,
      episode_episode_number: episode?.episodeNumber ?? null,
      episode_name: episode?.name ?? null,
      item_source_item_id: itemId,
      item_name: posix.basename(filePath),
      summary_new_titles: null,
      summary_new_items: null,
      delivered_at: null,
    };
  }
}

function describedOf(row: IndexRow): Described {
  return {
    title: row.title,
    originalTitle: row.original_title,
    year: row.year,
    releaseDate: row.release_date,
    overview: row.overview,
    tmdbId: row.tmdb_id,
    imdbId: row.imdb_id,
    providerPosterPath: row.provider_poster_path,
    providerPosterUrl: row.provider_poster_url,
  };
}

/** Whether a path lies at or below scope (a file is in scope when it is the scope). */
export function inScope(scope: string): (path: string) => boolean {
  if (scope === '/') return () => true;
  return (path) => path === scope || path.startsWith(`${scope}/`);
}
