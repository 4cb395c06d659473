import type { FastifyRequest } from 'fastify';
import type { Identity } from '@svc/contracts';
import { unauthorized } from '../../platform/http/errors.js';
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

/** What an entry was before a deletion or an overwrite, for the audit log. */
export const entryFacts = (entry: { path: string; type: string; size: number; mtime: string }) => ({
  path: entry.path,
  type: entry.type,
  size: entry.size,
  mtime: entry.mtime,
});

/** The audit target of a file or folder: `<mount id>:<path>`. */
export const fileTarget = (mountId: string, path: string) => ({ type: 'file', id: `${mountId}:${path}` });

/** The signed-in account of a console route (the route auth already refused requests without one). */
export function identityOf(request: FastifyRequest): Identity {
  if (!request.identity) throw unauthorized('sign-in required');
  return request.identity;
}

/** Rule of every console route of the storage node. */
export const CONSOLE_STORAGE = { auth: { gateway: { kind: 'admin', anyOf: ['storage'] } } } as const;
/** Rule of the console dashboard's routes of the node (menu permission `dashboard`). */
export const CONSOLE_DASHBOARD = { auth: { gateway: { kind: 'admin', anyOf: ['dashboard'] } } } as const;
/** Rule of the internal API (media service, play-agents). */
export const SERVICE_ONLY = { auth: { service: true } } as const;
