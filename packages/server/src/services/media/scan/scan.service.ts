import type { LibraryScanResponse, MediaSetupFacts, ScanMode, ScanStatus } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError, notFound } from '../../../platform/http/errors.js';
import type { LibrariesRepository } from '../libraries/libraries.repository.js';
import { toScanStatus } from '../items/media-mappers.js';
import type { ScanRunner } from './scan-runner.js';
import type { ScansRepository } from './scans.repository.js';

/** Starting and watching library scans; the runner carries them out in the background. */
export class ScanService {
  constructor(
    private readonly libraries: LibrariesRepository,
    private readonly scans: ScansRepository,
    private readonly runner: Pick<ScanRunner, 'kick'>,
    private readonly clock: Clock,
  ) {}

  /** Queues a scan of the whole library; 409 while another manual scan of it is queued or running. */
  async start(libraryId: string, mode: ScanMode): Promise<ScanStatus> {
    const queued = await this.scans.queueManual(libraryId, mode, new Date(this.clock.now()));
    if (!queued) throw notFound('library');
    if (queued.conflict) {
      throw new AppError(409, 'SCAN_IN_PROGRESS', 'a scan of this library is already queued or running', {
        scanId: queued.scan.id,
      });
    }
    this.runner.kick();
    return toScanStatus(queued.scan);
  }

  async status(libraryId: string): Promise<LibraryScanResponse> {
    if (!(await this.libraries.get(libraryId))) throw notFound('library');
    const [current, pendingTasks] = await Promise.all([
      this.scans.current(libraryId),
      this.scans.pendingCount(libraryId),
    ]);
    return { scan: current ? toScanStatus(current) : null, pendingTasks };
  }

  /** The media service's part of the dashboard's first-run checklist. */
  async setupFacts(): Promise<MediaSetupFacts> {
    return this.scans.setupCounts();
  }
}
