import type { Clock } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { MediaEventsRepository } from '../events/media-events.repository.js';
import type { ItemsRepository } from '../items/items.repository.js';
import type { LibrariesRepository, SourceRow } from '../libraries/libraries.repository.js';
import type { MetadataProvider } from '../metadata/metadata-provider.js';
import { StorageNotFoundError, type StorageGateway } from '../storage/storage-gateway.js';
import { planLibrary, type FileRef, type LibraryPlan } from './library-layout.js';
import type { ScanBatchRepository } from './scan-batch.repository.js';
import { yieldToRequests } from './scan-pool.js';
import { inScope, scanScope } from './scan-scope.js';
import { ScanState } from './scan-state.js';
import type { ScanRow, ScansRepository } from './scans.repository.js';
import { SourceReader } from './source-reader.js';
import { SourceWriter } from './source-writer.js';
import { TitleLookup } from './title-lookup.js';

export interface ScannerDeps {
  libraries: LibrariesRepository;
  items: ItemsRepository;
  scans: ScansRepository;
  events: MediaEventsRepository;
  batches: ScanBatchRepository;
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

interface SourceWalk {
  source: SourceRow;
  files: FileRef[] | null;
  /** Items below this path may be removed when not found (null: the whole source). */
  removalScope: string | null;
  plan?: LibraryPlan;
}

/**
 * One run of one scan (manual scan of a library or webhook task on a subtree): walks every source, plans
 * what its files are (library-layout.ts), writes the items (SourceWriter) and removes those gone.
 */
export class ScanExecution {
  private readonly state: ScanState;
  private readonly reader: SourceReader;

  constructor(
    private readonly deps: ScannerDeps,
    private readonly scan: ScanRow,
    private readonly signal: AbortSignal,
  ) {
    this.state = new ScanState(deps, scan, signal);
    this.reader = new SourceReader(deps.storage, this.state);
  }

  async run(): Promise<void> {
    const { libraries, scans, events } = this.deps;
    const { state } = this;
    const library = await libraries.get(this.scan.library_id);
    if (!library) {
      await scans.finish(this.scan.id, 'cancelled', 'the library was deleted', state.now());
      return;
    }
    let sources = await libraries.sourcesOf([library.id]);
    if (this.scan.scope_source_id)
      sources = sources.filter((source) => source.id === this.scan.scope_source_id);
    if (sources.length === 0) {
      await scans.finish(this.scan.id, 'cancelled', 'the library source was removed', state.now());
      return;
    }
    const titles = new TitleLookup(await this.deps.provider(), state);
    state.probeTools = await this.reader.checkProbeTools(new Set(sources.map((source) => source.node_id)));
    await state.progress(true, 'walking');

    const walks: SourceWalk[] = [];
    for (const source of sources) walks.push(await this.walk(source));
    for (const walk of walks) {
      if (!walk.files) continue;
      const include = walk.removalScope === null ? undefined : inScope(walk.removalScope);
      walk.plan = planLibrary(library.type, walk.source.path, walk.files, include);
      state.counters.files_total +=
        walk.plan.movies.length + walk.plan.episodes.length + walk.plan.skipped.length;
    }
    state.checkAbort();
    await state.progress(true, 'processing');

    const parts = {
      batches: this.deps.batches,
      batchSize: this.deps.batchSize ?? 100,
      concurrency: this.deps.concurrency ?? 8,
      reader: this.reader,
      titles,
      state,
      library,
    };
    const seen = new Map<string, Set<string>>();
    for (const walk of walks) {
      if (!walk.plan) continue;
      const index = await this.deps.items.indexForSource(walk.source.id);
      seen.set(walk.source.id, await new SourceWriter(parts, walk.source, index).write(walk.plan));
    }

    await state.progress(true, 'removing');
    for (const walk of walks) {
      const keys = seen.get(walk.source.id);
      if (!walk.files || !keys) continue;
      await this.remove(walk, keys);
    }

    const summary = await events.completeScan(this.scan.id);
    await state.progress(true);
    const failed = state.sourceFailed || walks.some((walk) => !walk.files);
    this.deps.logger.info(
      { scanId: this.scan.id, libraryId: library.id, ...state.counters, events: summary.newItems },
      'library scan finished',
    );
    await scans.finish(
      this.scan.id,
      failed ? 'failed' : 'succeeded',
      state.problems.length > 0 ? state.problems.join('; ').slice(0, 2000) : null,
      state.now(),
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
          this.state.checkAbort();
          await yieldToRequests();
        }
      }
    } catch (error) {
      this.state.checkAbort();
      // A subtree that no longer exists is empty: what was in it is removed. A missing source is a failure.
      if (error instanceof StorageNotFoundError && walkRoot !== source.path)
        return { source, files: [], removalScope };
      this.state.problem(
        `cannot read ${source.node_id}:${source.mount_id}:${walkRoot}: ${(error as Error).message}`,
      );
      return { source, files: null, removalScope };
    }
    return { source, files, removalScope };
  }

  private async remove(walk: SourceWalk, seenKeys: Set<string>): Promise<void> {
    const { items } = this.deps;
    const { counters } = this.state;
    const index = await items.indexForSource(walk.source.id);
    const within = walk.removalScope === null ? () => true : inScope(walk.removalScope);
    const gone = index.filter(
      (row) =>
        (row.kind === 'movie' || row.kind === 'episode') && within(row.path) && !seenKeys.has(row.item_key),
    );
    if (walk.removalScope === null && walk.files!.length === 0 && gone.length > 0) {
      // An empty source folder is far more often an unmounted drive than a deleted library.
      this.state.sourceFailed = true;
      this.state.problem(
        `${walk.source.node_id}:${walk.source.mount_id}:${walk.source.path} is empty; kept its ${gone.length} items`,
      );
      return;
    }
    counters.items_removed += await items.deleteIds(gone.map((row) => row.id));
    counters.items_removed += await items.deleteEmptyContainers(walk.source.id);
  }
}
