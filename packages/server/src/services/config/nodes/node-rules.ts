import { DEFAULT_PLAY_AGENT_PORT, type ErrorCode, type Identity } from '@svc/contracts';
import { nonPublicAddressOf } from '../../../platform/http/address-policy.js';
import { AppError, adminOnlySetting } from '../../../platform/http/errors.js';
import type { NodeServiceType } from '../config.db.js';
import type { NodesRepository } from './nodes.repository.js';

/** The node types that run somewhere (installed by a script): storage and play-agent. */
export type WorkerType = 'svc-control-storage' | 'svc-play-agent';

export const isWorker = (type: NodeServiceType): type is WorkerType => type !== 'manual-play-agent-endpoint';

export const conflict = (code: ErrorCode, message: string, details?: unknown) =>
  new AppError(409, code, message, details);

/** Built-in nodes run with the control plane: they are never deleted, uninstalled or upgraded on their own. */
export const embeddedRefusal = () =>
  conflict('NODE_EMBEDDED', 'a built-in node cannot be deleted, uninstalled or upgraded on its own');

/**
 * The service probes every manual address (GET https://host[:port]/health) from inside the network: only
 * role admin may aim that probe at a loopback, private-network or link-local host (docs/nodes.md).
 */
export async function requireProbeRight(actor: Identity, host: string): Promise<void> {
  if (actor.role === 'admin') return;
  const inside = await nonPublicAddressOf(host);
  if (inside) {
    throw adminOnlySetting(
      'externalAddress/host',
      `only an administrator may set a manual address on a host that is not public (${host}: ${inside.range})`,
    );
  }
}

/**
 * The listen port of a play-agent on `host`: the requested one unless another play-agent on that host uses
 * it (409); none requested: 19090, or the next port up that no play-agent on the host uses (19091, …).
 * `locked` is the repository bound to the transaction holding the node slots lock.
 */
export async function chooseListenPort(
  locked: NodesRepository,
  nodeId: string,
  host: string,
  requested: number | null,
): Promise<number> {
  const others = await locked.playAgentPortsOnHost(host, DEFAULT_PLAY_AGENT_PORT, nodeId);
  const used = new Map(others.map((other) => [other.port, other.nodeId]));
  if (requested !== null) {
    const holder = used.get(requested);
    if (holder !== undefined) {
      throw conflict(
        'LISTEN_PORT_TAKEN',
        `listen port ${requested} on ${host} is used by play-agent ${holder}`,
        {
          host,
          port: requested,
          nodeId: holder,
        },
      );
    }
    return requested;
  }
  let port = DEFAULT_PLAY_AGENT_PORT;
  while (used.has(port)) port++;
  if (port > 65535) throw conflict('LISTEN_PORT_TAKEN', `no free listen port on ${host}`, { host });
  return port;
}
