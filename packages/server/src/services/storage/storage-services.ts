import { SecretBox } from '../../platform/secret-box.js';
import type { Kysely } from 'kysely';
import type { AuditClient } from '../../platform/audit/audit-client.js';
import type { Clock } from '../../platform/cache/index.js';
import type { Logger } from '../../platform/logger.js';
import { TempCleanup } from './cleanup/cleanup.service.js';
import { DriveAccountsRepository } from './drives/drive-accounts.repository.js';
import { DriveAccountsService } from './drives/drive-accounts.service.js';
import { FilesService } from './files/files.service.js';
import { MountsService } from './mounts.service.js';
import { MountsRepository } from './mounts/mounts.repository.js';
import { ProbeSource } from './probe/probe-source.js';
import { ProbeTool } from './probe/probe-tool.js';
import { ProbeService } from './probe/probe.service.js';
import { StorageHealthRepository } from './storage-health.repository.js';
import type { StorageDatabase } from './storage.db.js';
import { TransferEvents } from './transfers/transfer-events.js';
import { TransferRunner } from './transfers/transfer-runner.js';
import { TransfersRepository } from './transfers/transfers.repository.js';
import { TransfersService } from './transfers/transfers.service.js';
import { UploadsRepository } from './uploads/uploads.repository.js';
import { UploadsService } from './uploads/uploads.service.js';
import { StorageUsageService } from './usage/usage.service.js';

/** Everything the storage node's routes and tasks use. */
export interface StorageServices {
  mounts: MountsService;
  /** Drive accounts that drive mounts name (docs/drives.md). */
  driveAccounts: DriveAccountsService;
  files: FilesService;
  transfers: TransfersService;
  transferEvents: TransferEvents;
  uploads: UploadsService;
  probe: ProbeService;
  /** ffprobe on this machine (looked for once at start; the health document reports it). */
  probeTool: ProbeTool;
  cleanup: TempCleanup;
  usage: StorageUsageService;
  health: StorageHealthRepository;
  /** Records mount changes and file operations that delete or overwrite (docs/audit.md). */
  audit: AuditClient;
  /** Stops transfers, the event stream, the probe source and the open providers. */
  release(): Promise<void>;
}

export interface StorageServicesOptions {
  dataDir: string;
  /** Where uploads collect their chunks when the mount cannot hold a temp file. */
  stagingDir: string;
  clock: Clock;
  logger: Logger;
  audit: AuditClient;
  ffprobe?: string;
  transferConcurrency: number;
  eventHeartbeatMs?: number;
}

/** The storage node's object graph: repositories, then the services built on them (routes come after). */
export function createStorageServices(
  db: Kysely<StorageDatabase>,
  options: StorageServicesOptions,
): StorageServices {
  const { clock, logger, stagingDir } = options;
  const mountsRepository = new MountsRepository(db);
  const transfersRepository = new TransfersRepository(db);
  const uploadsRepository = new UploadsRepository(db);

  const probeTool = new ProbeTool(logger, { binary: options.ffprobe });
  const probeSource = new ProbeSource(logger);
  const secretBox = SecretBox.fromDataDir(options.dataDir);
  const driveAccounts = new DriveAccountsService(
    new DriveAccountsRepository(db),
    { dataDir: options.dataDir },
    clock,
    logger,
    secretBox,
  );
  const mounts = new MountsService(
    mountsRepository,
    { dataDir: options.dataDir },
    clock,
    logger,
    secretBox,
    driveAccounts,
  );
  const files = new FilesService(mounts, clock, logger);
  const transferEvents = new TransferEvents(options.eventHeartbeatMs);
  const runner = new TransferRunner(transfersRepository, mounts, files, transferEvents, clock, logger);
  const transfers = new TransfersService(
    transfersRepository,
    mounts,
    runner,
    transferEvents,
    clock,
    logger,
    options.transferConcurrency,
  );
  const uploads = new UploadsService(uploadsRepository, mounts, files, stagingDir, clock, logger);
  const cleanup = new TempCleanup(
    mounts,
    uploads,
    uploadsRepository,
    transfersRepository,
    stagingDir,
    clock,
    logger,
  );
  const probe = new ProbeService(probeTool, probeSource, mounts);
  // A mount with running transfers or open uploads cannot be deleted.
  mounts.setUseCheck(
    async (mountId) => (await transfers.activeForMount(mountId)) || (await uploads.openForMount(mountId)),
  );
  return {
    mounts,
    driveAccounts,
    files,
    transfers,
    transferEvents,
    uploads,
    probe,
    probeTool,
    cleanup,
    usage: new StorageUsageService(mounts, logger),
    health: new StorageHealthRepository(db),
    audit: options.audit,
    release: async () => {
      await transfers.stop();
      transferEvents.close();
      await probeSource.close();
      await mounts.close();
    },
  };
}
