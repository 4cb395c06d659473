import type {
  CreateLibraryRequest,
  Library,
  LibraryDetail,
  LibrarySourceInput,
  ListLibrariesResponse,
  ProbeToolStatus,
  UpdateLibraryRequest,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { errorCode } from '../../../platform/db/errors.js';
import { AppError, notFound } from '../../../platform/http/errors.js';
import type { LibrariesRepository } from './libraries.repository.js';
import { toLibrary } from '../items/media-mappers.js';
import type { ScanService } from '../scan/scan.service.js';
import type { ScansRepository } from '../scan/scans.repository.js';
import { StorageUnavailableError, type StorageGateway } from '../storage/storage-gateway.js';

const nameTaken = () => new AppError(409, 'LIBRARY_NAME_TAKEN', 'a library with this name exists');
const scanRunning = () =>
  new AppError(409, 'SCAN_IN_PROGRESS', 'a scan of this library is running; try again when it has finished');

/** Libraries and their sources (console permission `library`). */
export class LibrariesService {
  constructor(
    private readonly libraries: LibrariesRepository,
    private readonly scans: ScansRepository,
    private readonly storage: StorageGateway,
    private readonly clock: Clock,
    /** Queues the first scan of a new library (the runner carries it out in the background). */
    private readonly firstScan: Pick<ScanService, 'start'>,
  ) {}

  private now(): Date {
    return new Date(this.clock.now());
  }

  async list(): Promise<ListLibrariesResponse> {
    const rows = await this.libraries.list();
    const ids = rows.map((row) => row.id);
    const [sources, counts, scans] = await Promise.all([
      this.libraries.sourcesOf(ids),
      this.libraries.counts(ids),
      this.scans.latestOf(ids),
    ]);
    return {
      libraries: rows.map((row) =>
        toLibrary(
          row,
          sources.filter((source) => source.library_id === row.id),
          counts.get(row.id),
          scans.get(row.id),
        ),
      ),
    };
  }

  private async one(id: string): Promise<Library> {
    const row = await this.libraries.get(id);
    if (!row) throw notFound('library');
    const [sources, counts, scans] = await Promise.all([
      this.libraries.sourcesOf([id]),
      this.libraries.counts([id]),
      this.scans.latestOf([id]),
    ]);
    return toLibrary(row, sources, counts.get(id), scans.get(id));
  }

  async get(id: string): Promise<LibraryDetail> {
    const library = await this.one(id);
    const nodes = [...new Set(library.sources.map((source) => source.nodeId))];
    const probeTools = await Promise.all(nodes.map((nodeId) => this.probeTool(nodeId)));
    return { ...library, probeTools };
  }

  private async probeTool(nodeId: string): Promise<ProbeToolStatus> {
    try {
      const tool = await this.storage.probeTool(nodeId, AbortSignal.timeout(5_000));
      return { nodeId, reachable: true, available: tool.available, version: tool.version };
    } catch {
      return { nodeId, reachable: false, available: false, version: null };
    }
  }

  async create(request: CreateLibraryRequest): Promise<Library> {
    await this.checkSources(request.sources);
    let id: string;
    try {
      id = await this.libraries.create(
        { name: request.name, type: request.type },
        request.sources,
        this.now(),
      );
    } catch (error) {
      if (errorCode(error) === '23505') throw nameTaken();
      throw error;
    }
    // Queued, not awaited: the answer carries the queued scan as `lastScan` and the console follows it.
    if (request.scan) await this.firstScan.start(id, 'full');
    return this.one(id);
  }

  async update(id: string, request: UpdateLibraryRequest): Promise<Library> {
    const current = await this.one(id);
    if (request.sources) {
      const known = (source: LibrarySourceInput) =>
        current.sources.some(
          (s) => s.nodeId === source.nodeId && s.mountId === source.mountId && s.path === source.path,
        );
      await this.checkSources(request.sources, known);
      const unchanged =
        request.sources.length === current.sources.length && request.sources.every((source) => known(source));
      if (!unchanged && (await this.scans.hasRunning(id))) throw scanRunning();
    }
    try {
      await this.libraries.update(id, request, this.now());
    } catch (error) {
      if (errorCode(error) === '23505') throw nameTaken();
      throw error;
    }
    return this.one(id);
  }

  async delete(id: string): Promise<void> {
    if (!(await this.libraries.get(id))) throw notFound('library');
    if (await this.scans.hasRunning(id)) throw scanRunning();
    await this.libraries.delete(id);
  }

  /**
   * Every new source must name a storage node that is online and one of its mounts. An offline node or an
   * unknown mount is a validation failure; a registry or node that does not answer is a 503.
   */
  private async checkSources(
    sources: readonly LibrarySourceInput[],
    alreadyKnown: (source: LibrarySourceInput) => boolean = () => false,
  ): Promise<void> {
    const problems: { path: string; message: string }[] = [];
    const mountsByNode = new Map<string, Set<string> | null>();
    for (const [index, source] of sources.entries()) {
      if (alreadyKnown(source)) continue;
      if (!mountsByNode.has(source.nodeId)) {
        try {
          const mounts = await this.storage.listMounts(source.nodeId, AbortSignal.timeout(10_000));
          mountsByNode.set(source.nodeId, new Set(mounts.map((mount) => mount.id)));
        } catch (error) {
          if (error instanceof StorageUnavailableError && error.reason === 'offline') {
            mountsByNode.set(source.nodeId, null);
          } else {
            throw new AppError(
              503,
              'UPSTREAM_UNAVAILABLE',
              `storage node ${source.nodeId} did not answer; try again later`,
            );
          }
        }
      }
      const mounts = mountsByNode.get(source.nodeId);
      if (mounts === null) {
        problems.push({ path: `/sources/${index}/nodeId`, message: 'no such storage node is online' });
      } else if (!mounts?.has(source.mountId)) {
        problems.push({ path: `/sources/${index}/mountId`, message: 'the storage node has no such mount' });
      }
    }
    if (problems.length > 0) throw new AppError(400, 'VALIDATION_FAILED', 'request is not valid', problems);
  }
}
