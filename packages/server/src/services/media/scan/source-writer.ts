import { randomUUID } from 'node:crypto';
import type { MediaInfo } from '@svc/contracts';
import type { NewMediaEvent } from '../events/media-events.repository.js';
import type { IndexRow, ItemPatch, NewItemRow } from '../items/items.repository.js';
import type { LibraryRow, SourceRow } from '../libraries/libraries.repository.js';
import type { StoredImages } from '../media.db.js';
import type { NfoData } from '../metadata/nfo.js';
import {
  describe,
  describedOf,
  episodeValues,
  movieValues,
  seasonValues,
  seriesValues,
  storedImages,
  unchanged,
  type Described,
} from './item-values.js';
import type {
  LibraryPlan,
  PlannedEpisode,
  PlannedMovie,
  PlannedSeason,
  PlannedSeries,
} from './library-layout.js';
import { mediaAddedEvent, type AddedMedia } from './media-added-event.js';
import type { ScanBatchRepository } from './scan-batch.repository.js';
import { mapPool, yieldToRequests } from './scan-pool.js';
import type { ScanState } from './scan-state.js';
import type { SourceReader } from './source-reader.js';
import type { TitleLookup } from './title-lookup.js';

/** A stored series as its episodes need it: their parent, and what their events say about it. */
interface SeriesEntry {
  id: string;
  described: Described;
  images: StoredImages;
}

/**
 * What differs between the two kinds of video file a scan writes, movies and episodes: how one is prepared
 * (read, probed, looked up) and which columns and event come of it. Everything else is one loop.
 */
interface FileKind<P extends PlannedMovie | PlannedEpisode, R> {
  kind: 'movie' | 'episode';
  prepare(planned: P): Promise<R>;
  item(planned: P, prepared: R, id: string): { values: ItemPatch; event: () => NewMediaEvent };
}

interface Write {
  id: string;
  existing: boolean;
  kind: NewItemRow['kind'];
  key: string;
  values: ItemPatch;
  event: () => NewMediaEvent;
}

/**
 * Brings the items of one library source in line with its plan: its movies, then its series and seasons,
 * then their episodes (which hang below them). Answers the keys of every item the plan still has.
 */
export class SourceWriter {
  private readonly index: Map<string, IndexRow>;
  private readonly seenKeys = new Set<string>();
  private readonly full: boolean;

  constructor(
    private readonly parts: {
      batches: ScanBatchRepository;
      /** Items prepared and written together. */
      batchSize: number;
      /** Items prepared at once. */
      concurrency: number;
      reader: SourceReader;
      titles: TitleLookup;
      state: ScanState;
      library: LibraryRow;
    },
    private readonly source: SourceRow,
    index: readonly IndexRow[],
  ) {
    this.index = new Map(index.map((row) => [row.item_key, row]));
    this.full = parts.state.scan.mode === 'full';
  }

  async write(plan: LibraryPlan): Promise<Set<string>> {
    const { counters } = this.parts.state;
    counters.files_skipped += plan.skipped.length;
    counters.files_seen += plan.skipped.length;

    await this.writeFiles(plan.movies, {
      kind: 'movie',
      prepare: (movie) => this.prepareMovie(movie),
      item: (movie, { described, mediaInfo }, id) => ({
        values: movieValues(movie, described, mediaInfo, this.parts.state.now()),
        event: () =>
          this.event({ id, type: 'movie', described, images: movie.images }, null, id, movie.file.path),
      }),
    });

    const seriesRows = new Map<string, SeriesEntry>();
    for (const series of plan.series.values()) {
      this.seenKeys.add(series.key);
      this.parts.state.checkAbort();
      seriesRows.set(series.key, await this.ensureSeries(series));
    }
    const seasonIds = new Map<string, string>();
    for (const season of plan.seasons.values()) {
      this.seenKeys.add(season.key);
      const series = seriesRows.get(season.seriesKey)!;
      seasonIds.set(season.key, await this.ensureSeason(season, series.id));
    }

    await this.writeFiles(plan.episodes, {
      kind: 'episode',
      prepare: (episode) => this.prepareEpisode(episode),
      item: (episode, { nfo, mediaInfo }, id) => {
        const series = seriesRows.get(episode.seriesKey)!;
        const parents = { seasonId: seasonIds.get(episode.seasonKey)!, seriesId: series.id };
        const values = episodeValues(episode, nfo, mediaInfo, parents, this.parts.state.now());
        const numbers = { seasonNumber: episode.seasonNumber, episodeNumber: episode.episodeNumber };
        return {
          values,
          event: () =>
            this.event(
              { ...series, type: 'series' },
              { ...numbers, name: values.title! },
              id,
              episode.file.path,
            ),
        };
      },
    });
    return this.seenKeys;
  }

  /**
   * The video files of one kind: an incremental scan skips those unchanged since the last scan; the others
   * are prepared a few at a time and written in batches, reporting progress and letting requests through.
   */
  private async writeFiles<P extends PlannedMovie | PlannedEpisode, R>(
    planned: readonly P[],
    kind: FileKind<P, R>,
  ): Promise<void> {
    const { state } = this.parts;
    const changed = planned.filter((file) => {
      this.seenKeys.add(file.key);
      const row = this.index.get(file.key);
      if (!this.full && row && unchanged(row, file.file, file.sidecarSig)) {
        state.counters.files_seen += 1;
        return false;
      }
      return true;
    });
    const { batchSize: size, concurrency } = this.parts;
    for (let start = 0; start < changed.length; start += size) {
      state.checkAbort();
      const batch = changed.slice(start, start + size);
      const prepared = await mapPool(batch, concurrency, (file) => state.seen(kind.prepare(file)));
      await this.writeBatch(
        batch.map((file, i) => {
          const existing = this.index.get(file.key);
          const id = existing?.id ?? randomUUID();
          const item = kind.item(file, prepared[i]!, id);
          return { id, existing: !!existing, kind: kind.kind, key: file.key, ...item };
        }),
      );
      await state.progress();
      await yieldToRequests();
    }
    await state.progress();
  }

  /** Writes a batch of prepared items in one transaction, with the events of the new ones. */
  private async writeBatch(writes: readonly Write[]): Promise<void> {
    const inserts = writes.filter((write) => !write.existing);
    const updates = writes.filter((write) => write.existing);
    await this.parts.batches.write({
      inserts: inserts.map((write) => this.newRow(write.id, write.kind, write.key, write.values)),
      updates: updates.map(({ id, values }) => ({ id, values })),
      events: inserts.map((write) => write.event()),
    });
    this.parts.state.counters.items_added += inserts.length;
    this.parts.state.counters.items_updated += updates.length;
  }

  /** Inserts or updates one series or season item (they are few: one at a time). */
  private async save(
    existing: IndexRow | undefined,
    item: { id: string; kind: 'series' | 'season'; key: string; values: ItemPatch },
  ): Promise<void> {
    const { counters } = this.parts.state;
    const { batches } = this.parts;
    if (existing) {
      await batches.updateItem(item.id, item.values);
      counters.items_updated += 1;
    } else {
      const row = this.newRow(item.id, item.kind, item.key, item.values);
      await batches.insertItem(row);
      counters.items_added += 1;
    }
  }

  private newRow(id: string, kind: NewItemRow['kind'], key: string, values: ItemPatch): NewItemRow {
    const now = this.parts.state.now();
    return {
      id,
      library_id: this.parts.library.id,
      source_id: this.source.id,
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

  private async ensureSeries(series: PlannedSeries): Promise<SeriesEntry> {
    const existing = this.index.get(series.key);
    if (existing && !this.full && existing.sidecar_sig === series.sidecarSig) {
      return { id: existing.id, described: describedOf(existing), images: existing.images };
    }
    const { reader, titles, state } = this.parts;
    const nfo = series.nfo ? await reader.readNfo(this.source, series.nfo.path, 'tvshow') : null;
    const provider = await titles.lookup('series', {
      title: nfo?.title ?? series.parsed.title,
      year: nfo?.year ?? series.parsed.year,
      tmdbId: nfo?.tmdbId ?? series.parsed.tmdbId,
      imdbId: nfo?.imdbId ?? series.parsed.imdbId,
    });
    const described = describe(nfo, provider, series.parsed);
    const images = storedImages(series.images);
    const id = existing?.id ?? randomUUID();
    const values = seriesValues(series, described, images, state.now());
    await this.save(existing, { id, kind: 'series', key: series.key, values });
    return { id, described, images };
  }

  private async ensureSeason(season: PlannedSeason, seriesId: string): Promise<string> {
    const existing = this.index.get(season.key);
    if (existing && !this.full && existing.sidecar_sig === season.sidecarSig) return existing.id;
    const id = existing?.id ?? randomUUID();
    const values = seasonValues(season, seriesId, this.parts.state.now());
    await this.save(existing, { id, kind: 'season', key: season.key, values });
    return id;
  }

  private async prepareMovie(
    movie: PlannedMovie,
  ): Promise<{ described: Described; mediaInfo: MediaInfo | null }> {
    const { reader, titles } = this.parts;
    const nfo = movie.nfo ? await reader.readNfo(this.source, movie.nfo.path, 'movie') : null;
    const [provider, mediaInfo] = await Promise.all([
      titles.lookup('movie', {
        title: nfo?.title ?? movie.parsed.title,
        year: nfo?.year ?? movie.parsed.year,
        tmdbId: nfo?.tmdbId ?? movie.parsed.tmdbId,
        imdbId: nfo?.imdbId ?? movie.parsed.imdbId,
      }),
      reader.probe(this.source, movie.file),
    ]);
    return { described: describe(nfo, provider, movie.parsed), mediaInfo };
  }

  private async prepareEpisode(
    episode: PlannedEpisode,
  ): Promise<{ nfo: NfoData | null; mediaInfo: MediaInfo | null }> {
    const { reader } = this.parts;
    const [nfo, mediaInfo] = await Promise.all([
      episode.nfo ? reader.readNfo(this.source, episode.nfo.path, 'episodedetails') : Promise.resolve(null),
      reader.probe(this.source, episode.file),
    ]);
    return { nfo, mediaInfo };
  }

  private event(
    media: AddedMedia,
    episode: { seasonNumber: number; episodeNumber: number; name: string } | null,
    itemId: string,
    filePath: string,
  ): NewMediaEvent {
    const { state, library } = this.parts;
    return mediaAddedEvent(
      { scanId: state.scan.id, library, now: state.now() },
      media,
      episode,
      itemId,
      filePath,
    );
  }
}
