import type {
  ActiveSession,
  DashboardSetupResponse,
  InstanceHealth,
  MountUsage,
  NodeHealth,
  SetupStep,
} from '@svc/contracts';

/** The dashboard refreshes its three sources this often. */
export const DASHBOARD_REFRESH_MS = 10_000;

/** How far into the media a session is, 0–100, or null when the runtime is unknown. */
export function playbackPercent(positionSec: number | null, runtimeSec: number | null): number | null {
  if (positionSec === null || runtimeSec === null || !Number.isFinite(runtimeSec) || runtimeSec <= 0)
    return null;
  if (!Number.isFinite(positionSec) || positionSec <= 0) return 0;
  return Math.min(100, (positionSec / runtimeSec) * 100);
}

/** "Series · Episode" for episodes of a series, else the media's own name. */
export function mediaTitle(session: Pick<ActiveSession, 'mediaName' | 'seriesName'>): string {
  return session.seriesName ? `${session.seriesName} · ${session.mediaName}` : session.mediaName;
}

/** "Client · Device", leaving out an empty part. */
export function clientLabel(session: Pick<ActiveSession, 'client' | 'deviceName'>): string {
  return [session.client, session.deviceName].filter((part) => part.trim() !== '').join(' · ') || '—';
}

/** Whole seconds from `since` to `now`, never negative (clocks of browser and service differ a little). */
export function elapsedSeconds(since: string, now: number): number {
  const start = Date.parse(since);
  if (Number.isNaN(start)) return 0;
  return Math.max(0, Math.floor((now - start) / 1000));
}

/** Node names by node id, to show a session's play-agent by name. */
export function nodeNames(nodes: readonly Pick<NodeHealth, 'nodeId' | 'name'>[]): Map<string, string> {
  return new Map(nodes.map((node) => [node.nodeId, node.name]));
}

export interface MountSpace {
  /** Used share 0–100, or null when the backend reported no sizes. */
  percent: number | null;
  color: string;
}

/** A mount's used share and bar colour: blue, orange from 80 %, red from 95 %; grey without sizes. */
export function mountSpace(mount: Pick<MountUsage, 'status' | 'totalBytes' | 'usedBytes'>): MountSpace {
  if (
    mount.status !== 'ok' ||
    mount.totalBytes === null ||
    mount.usedBytes === null ||
    mount.totalBytes <= 0
  ) {
    return { percent: null, color: 'gray' };
  }
  const percent = Math.min(100, Math.max(0, (mount.usedBytes / mount.totalBytes) * 100));
  return { percent, color: percent >= 95 ? 'red' : percent >= 80 ? 'orange' : 'blue' };
}

/** Used and total bytes over the mounts that report sizes; `reported` counts them. */
export function storageTotals(mounts: readonly Pick<MountUsage, 'status' | 'totalBytes' | 'usedBytes'>[]) {
  let used = 0;
  let total = 0;
  let reported = 0;
  for (const mount of mounts) {
    if (mount.status === 'ok' && mount.totalBytes !== null && mount.usedBytes !== null) {
      used += mount.usedBytes;
      total += mount.totalBytes;
      reported += 1;
    }
  }
  return { used, total, reported };
}

/** Instances with the ones that are down first, then by service and instance id. */
export function sortInstances<T extends Pick<InstanceHealth, 'status' | 'service' | 'instanceId'>>(
  instances: readonly T[],
): T[] {
  return [...instances].sort(
    (a, b) =>
      Number(b.status === 'down') - Number(a.status === 'down') ||
      a.service.localeCompare(b.service) ||
      a.instanceId.localeCompare(b.instanceId),
  );
}

/** Badge colour of a node state: ONLINE green, offline red, PENDING (never seen yet) yellow. */
export function nodeStatusColor(status: NodeHealth['status']): string {
  return status === 'ONLINE' ? 'green' : status === 'offline' ? 'red' : 'yellow';
}

/** The console page that does each step of the first-run checklist. */
export const SETUP_STEP_PAGES: Readonly<Record<SetupStep, string>> = {
  storage: '/console/storage',
  library: '/console/libraries',
  scan: '/console/libraries',
  playback: '/console/nodes',
  users: '/console/users',
};

/** The checklist shows until every step is done; `done` counts the steps that are. */
export function setupProgress(setup: DashboardSetupResponse | undefined): { show: boolean; done: number } {
  if (!setup) return { show: false, done: 0 };
  return {
    show: !setup.complete,
    done: setup.steps.filter((step) => step.state === 'done').length,
  };
}
