import {
  SETUP_STEPS,
  type DashboardSetupResponse,
  type ListNodesResponse,
  type SetupStep,
  type SetupStepState,
} from '@svc/contracts';
import type { NodeManagementService } from '../nodes/node-management.service.js';
import type { SetupFactSources } from './setup-facts.client.js';

export interface DashboardSetupDeps {
  /** The node list with the status it derives (ONLINE while the heartbeat or probe is fresh). */
  nodes: Pick<NodeManagementService, 'list'>;
  facts: SetupFactSources;
}

const stateOf = (done: boolean | null): SetupStepState =>
  done === null ? 'unknown' : done ? 'done' : 'todo';

/**
 * A play-agent users can be sent to: an enabled play-agent or manual address that is ONLINE. Every online
 * play-agent has an address users receive (its external address, else the direct one), so being online is
 * the fact that matters.
 */
function playbackReady(nodes: ListNodesResponse['nodes']): boolean {
  return nodes.some(
    (node) =>
      (node.serviceType === 'svc-play-agent' || node.serviceType === 'manual-play-agent-endpoint') &&
      node.status === 'ONLINE' &&
      !node.disabled,
  );
}

/**
 * The dashboard's first-run checklist: what is left before users can play. Each fact is asked when the
 * dashboard asks, from the service that owns it; the config service itself knows the nodes.
 */
export class DashboardSetupService {
  constructor(private readonly deps: DashboardSetupDeps) {}

  async setup(): Promise<DashboardSetupResponse> {
    const [mounts, media, users, nodes] = await Promise.all([
      this.deps.facts.mounts(),
      this.deps.facts.media(),
      this.deps.facts.users(),
      this.deps.nodes.list(),
    ]);
    const done: Record<SetupStep, boolean | null> = {
      storage: mounts === null ? null : mounts > 0,
      library: media === null ? null : media.libraries > 0,
      scan: media === null ? null : media.scannedLibraries > 0,
      playback: playbackReady(nodes.nodes),
      users: users === null ? null : users.users > 0,
    };
    const steps = SETUP_STEPS.map((step) => ({ step, state: stateOf(done[step]) }));
    return { steps, complete: steps.every((step) => step.state === 'done') };
  }
}
