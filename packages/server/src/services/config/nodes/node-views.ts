import {
  DEFAULT_PLAY_AGENT_PORT,
  DEFAULT_STORAGE_PORT,
  type ExternalAddress,
  type InstallCommand,
  type InstallKind,
  type NodeCredentials,
  type NodeView,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { hostnameOf } from '../../../platform/http/request-origin.js';
import type { NodeRow } from './node-rows.js';
import { isWorker, type WorkerType } from './node-rules.js';
import { shownNodeStatus } from './nodes.service.js';

/** Install script kinds offered per worker type (spec: "The six values of kind"). */
const INSTALL_KINDS: Record<WorkerType, readonly InstallKind[]> = {
  'svc-control-storage': ['binary', 'binary-jdk', 'docker', 'uninstall', 'upgrade-binary', 'upgrade-docker'],
  'svc-play-agent': ['binary', 'docker', 'uninstall', 'upgrade-binary', 'upgrade-docker'],
};
/** Play-agent kinds that also come with `?ffmpeg=true` (the media probe tool on the host or in the image). */
const FFMPEG_KINDS: ReadonlySet<InstallKind> = new Set([
  'binary',
  'docker',
  'upgrade-binary',
  'upgrade-docker',
]);

/** `svc_nt_…abcd`: the token's prefix and its last four characters. */
export function maskToken(token: string | null): string | null {
  if (token === null) return null;
  const prefix = /^[a-z]+_[a-z]+_/.exec(token)?.[0] ?? '';
  return `${prefix}…${token.slice(-4)}`;
}

/** protocol://host[:port]; the port is left out when empty or the protocol's default (https 443, http 80). */
export function addressUrl(protocol: 'http' | 'https', host: string, port: number | null): string {
  const implicit =
    port === null || (protocol === 'https' && port === 443) || (protocol === 'http' && port === 80);
  return `${protocol}://${host}${implicit ? '' : `:${port}`}`;
}

/** The install command line of one kind (spec: `curl -fsSL {config_url}/api/config/nodes/install/<NODE_TOKEN>/<kind> | bash`). */
export function installCommand(
  configUrl: string,
  nodeToken: string,
  kind: InstallKind,
  ffmpeg: boolean,
): string {
  const url = `${configUrl}/api/config/nodes/install/${nodeToken}/${kind}`;
  // The query's '?' would be a glob character to the shell: that variant is quoted.
  return ffmpeg ? `curl -fsSL '${url}?ffmpeg=true' | bash` : `curl -fsSL ${url} | bash`;
}

/** The port of a registered base URL (the protocol's default when it names none). */
function portOf(baseUrl: string): number | undefined {
  try {
    const url = new URL(baseUrl);
    return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  } catch {
    return undefined;
  }
}

/** What the status of a record is computed from (see nodeStatusOf). */
export function directoryFacts(row: NodeRow) {
  return {
    serviceType: row.service_type,
    scope: row.scope,
    status: row.status,
    lastHeartbeatAt: row.last_heartbeat_at === null ? null : new Date(row.last_heartbeat_at),
    healthStatus: row.health_status,
  };
}

/** The external address of a record (manual addresses are https only); null while none is set. */
export function externalAddressOf(row: NodeRow): ExternalAddress | null {
  if (row.external_host === null) return null;
  const protocol =
    row.service_type === 'manual-play-agent-endpoint' ? 'https' : (row.external_protocol ?? 'http');
  return {
    protocol,
    host: row.external_host,
    port: row.external_port,
    url: addressUrl(protocol, row.external_host, row.external_port),
  };
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

export interface NodeViewsOptions {
  clock: Clock;
  /** The config service's address as nodes reach it: the base of the install commands. */
  configUrl: string;
  /**
   * The newest registered base URL of each play-agent node (the registry): its port is the one the node
   * really listens on. Without it the configured port (default 19090) is shown.
   */
  registeredPlayAgents?: () => Promise<ReadonlyMap<string, string>>;
  /** SVC_PUBLIC_HOST: the host of the built-in play-agent's direct address when a request names none. */
  publicHost?: string;
  /** The install's edition (a built-in record of a DISTRIBUTED install reads AWAITING_INSTALL). */
  edition: () => Promise<Edition>;
}

type Edition = 'STANDALONE' | 'DISTRIBUTED';

/** How node records are shown: the console's view, "show full command", and the direct addresses. */
export class NodeViews {
  constructor(private readonly options: NodeViewsOptions) {}

  async viewOf(row: NodeRow): Promise<NodeView> {
    const [ports, edition] = await Promise.all([this.registeredPorts(), this.options.edition()]);
    return this.view(row, this.options.clock.now(), ports, edition);
  }

  view(row: NodeRow, now: number, ports: ReadonlyMap<string, number>, edition: Edition): NodeView {
    const manual = row.service_type === 'manual-play-agent-endpoint';
    const playAgent = row.service_type === 'svc-play-agent';
    const listenPort = playAgent ? this.listenPortOf(row, ports) : null;
    return {
      nodeId: row.node_id,
      serviceType: row.service_type,
      name: row.name,
      scope: row.scope,
      status: shownNodeStatus(directoryFacts(row), now, edition),
      lastHeartbeatAt: iso(row.last_heartbeat_at),
      disabled: row.disabled,
      expectedHost: manual ? null : row.expected_host,
      expectedPort: manual ? null : (row.expected_port ?? (playAgent ? listenPort : DEFAULT_STORAGE_PORT)),
      listenPort,
      note: row.note,
      externalAddress: externalAddressOf(row),
      tokens: {
        nodeToken: maskToken(row.node_token),
        registryToken: maskToken(row.registry_token),
        endpointToken: maskToken(row.endpoint_token),
      },
      probe:
        manual && row.health_status !== null && row.health_checked_at !== null
          ? {
              state: row.health_status,
              checkedAt: iso(row.health_checked_at)!,
              detail: row.health_detail ?? '',
            }
          : null,
      createdAt: iso(row.created_at)!,
      updatedAt: iso(row.updated_at)!,
    };
  }

  /** "Show full command": the tokens in full and the install command lines. */
  credentialsOf(row: NodeRow): NodeCredentials {
    const { configUrl } = this.options;
    const installCommands: InstallCommand[] = [];
    const worker = isWorker(row.service_type);
    if (isWorker(row.service_type) && row.scope === 'EXTERNAL' && row.node_token !== null) {
      for (const kind of INSTALL_KINDS[row.service_type]) {
        installCommands.push({
          kind,
          ffmpeg: false,
          command: installCommand(configUrl, row.node_token, kind, false),
        });
      }
      if (row.service_type === 'svc-play-agent') {
        for (const kind of INSTALL_KINDS[row.service_type].filter((k) => FFMPEG_KINDS.has(k))) {
          installCommands.push({
            kind,
            ffmpeg: true,
            command: installCommand(configUrl, row.node_token, kind, true),
          });
        }
      }
    }
    return {
      nodeId: row.node_id,
      serviceType: row.service_type,
      scope: row.scope,
      nodeToken: row.node_token,
      registryToken: row.registry_token,
      endpointToken: row.endpoint_token,
      configUrl: worker ? configUrl : null,
      installCommands,
    };
  }

  /**
   * Reverse-proxy rule 8: until an external address is set, users get the play-agent's direct address,
   * plain http (the play-agent has no TLS) at the port it really listens on. The host: a worker node's
   * expected host; the built-in node's the host the user reached the console with (the built-in
   * play-agent runs on that machine), else SVC_PUBLIC_HOST. Null when no host is known.
   */
  directAddress(
    row: NodeRow,
    ports: ReadonlyMap<string, number>,
    entranceHost: string | undefined,
  ): string | null {
    const entrance = entranceHost ?? this.options.publicHost;
    const host =
      row.scope === 'EMBEDDED' && entrance !== undefined ? hostnameOf(entrance) : row.expected_host;
    return host ? addressUrl('http', host, this.listenPortOf(row, ports)) : null;
  }

  /** Node id → the port in the newest registration of each play-agent. */
  async registeredPorts(): Promise<Map<string, number>> {
    const ports = new Map<string, number>();
    const addresses = (await this.options.registeredPlayAgents?.()) ?? new Map<string, string>();
    for (const [nodeId, baseUrl] of addresses) {
      const port = portOf(baseUrl);
      if (port !== undefined) ports.set(nodeId, port);
    }
    return ports;
  }

  /** Play-agents: the port of their newest registration, else the configured one (default 19090). */
  private listenPortOf(row: NodeRow, ports: ReadonlyMap<string, number>): number {
    return ports.get(row.node_id) ?? row.listen_port ?? DEFAULT_PLAY_AGENT_PORT;
  }
}
