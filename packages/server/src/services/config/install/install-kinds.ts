import { INSTALL_KINDS, type InstallKind } from '@svc/contracts';
import type { NodeServiceType } from '../config.db.js';

export { INSTALL_KINDS, type InstallKind };

/** Service types that are installed on machines of their own (manual addresses are not). */
export type WorkerServiceType = Exclude<NodeServiceType, 'manual-play-agent-endpoint'>;

export function isInstallKind(value: string): value is InstallKind {
  return (INSTALL_KINDS as readonly string[]).includes(value);
}

export function isWorkerServiceType(value: string): value is WorkerServiceType {
  return value === 'svc-control-storage' || value === 'svc-play-agent';
}

/** binary-jdk is offered for storage nodes only; every other kind for both. */
export function kindAllowed(kind: InstallKind, serviceType: WorkerServiceType): boolean {
  return kind !== 'binary-jdk' || serviceType === 'svc-control-storage';
}

/** Kinds that deliver the node's credentials and settings (first installs). */
export function isFirstInstall(kind: InstallKind): boolean {
  return kind === 'binary' || kind === 'binary-jdk' || kind === 'docker';
}

/** How each worker type runs: the `svc node <role>` argument, its default port and its health path. */
export const WORKER_TYPES: Record<
  WorkerServiceType,
  { role: 'storage' | 'play-agent'; defaultPort: number; healthPath: string; serviceDir: string }
> = {
  'svc-control-storage': {
    role: 'storage',
    defaultPort: 18084,
    healthPath: '/api/storage/ping',
    serviceDir: 'svc-control-storage',
  },
  'svc-play-agent': {
    role: 'play-agent',
    defaultPort: 19090,
    healthPath: '/health',
    serviceDir: 'svc-play-agent',
  },
};
