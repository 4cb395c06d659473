import type { AuditClient } from '../../platform/audit/audit-client.js';
import type { FilesService } from './files.service.js';
import type { MountsService } from './mounts.service.js';
import type { ProbeService } from './probe.service.js';
import type { TransferEvents } from './transfer-events.js';
import type { TransfersService } from './transfers.service.js';
import type { UploadsService } from './uploads.service.js';
import type { TempCleanup } from './cleanup.service.js';
import type { StorageUsageService } from './usage.service.js';

/** Everything the storage node's routes and tasks use. */
export interface StorageServices {
  mounts: MountsService;
  files: FilesService;
  transfers: TransfersService;
  transferEvents: TransferEvents;
  uploads: UploadsService;
  probe: ProbeService;
  cleanup: TempCleanup;
  usage: StorageUsageService;
  /** Records mount changes and file operations that delete or overwrite (docs/audit.md). */
  audit: AuditClient;
}

export { identityOf } from '../../platform/http/route-auth.js';

/** What an entry was before a deletion or an overwrite, for the audit log. */
export const entryFacts = (entry: { path: string; type: string; size: number; mtime: string }) => ({
  path: entry.path,
  type: entry.type,
  size: entry.size,
  mtime: entry.mtime,
});

/** The audit target of a file or folder: `<mount id>:<path>`. */
export const fileTarget = (mountId: string, path: string) => ({ type: 'file', id: `${mountId}:${path}` });

/** Rule of every console route of the storage node. */
export const CONSOLE_STORAGE = { auth: { gateway: { kind: 'admin', anyOf: ['storage'] } } } as const;
/** Rule of the console dashboard's routes of the node (menu permission `dashboard`). */
export const CONSOLE_DASHBOARD = { auth: { gateway: { kind: 'admin', anyOf: ['dashboard'] } } } as const;
/** Rule of the internal API (media service, play-agents). */
export const SERVICE_ONLY = { auth: { service: true } } as const;
