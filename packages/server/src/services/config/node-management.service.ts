import {
  DEFAULT_PLAY_AGENT_PORT,
  DEFAULT_STORAGE_PORT,
  type CreateNodeRequest,
  type CreateNodeResponse,
  type DeleteNodeResponse,
  type ErrorCode,
  type ExternalAddress,
  type Identity,
  type InstallCommand,
  type InstallKind,
  type ListNodesResponse,
  type NodeCredentials,
  type NodeLifecycleAction,
  type NodeLifecycleResponse,
  type NodePublicAddressResponse,
  type NodeView,
  type PlaybackRoute,
  type PlaybackRoutesResponse,
  type RegenerateEndpointTokenResponse,
  type UpdateNodeRequest,
} from '@svc/contracts';
import type { Clock } from '../../platform/cache/index.js';
import { nonPublicAddressOf } from '../../platform/http/address-policy.js';
import { AppError, adminOnlySetting, badRequest, notFound } from '../../platform/http/errors.js';
import type { NodeServiceType } from './config.db.js';
import { NODE_CREATING_STATES, type LicenseFacts, type LicenseGate } from './license-gate.js';
import type { LifecycleSendResult, NodeLifecycleSender } from './node-lifecycle.client.js';
import { newNodeId } from './node-tokens.js';
import type { NodeChanges, NodeRow, NodesRepository } from './nodes.repository.js';
import { nodeStatusOf } from './nodes.service.js';
import type { PlaybackPolicySource } from './playback-policy.client.js';
import { hostnameOf } from '../../platform/http/request-origin.js';

type WorkerType = 'svc-control-storage' | 'svc-play-agent';

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

const isWorker = (type: NodeServiceType): type is WorkerType => type !== 'manual-play-agent-endpoint';

const conflict = (code: ErrorCode, message: string, details?: unknown) =>
  new AppError(409, code, message, details);

export interface NodeManagementOptions {
  nodes: NodesRepository;
  licence: LicenseGate;
  clock: Clock;
  /** The config service's address as nodes reach it: the base of the install commands. */
  configUrl: string;
  playbackPolicies: PlaybackPolicySource;
  /** Sends upgrade and uninstall commands to ONLINE worker nodes; without it none is sent (`not-sent`). */
  lifecycle?: NodeLifecycleSender;
  /**
   * The newest registered base URL of each play-agent node (the registry): its port is the one the node
   * really listens on. Without it the configured port (default 19090) is shown.
   */
  registeredPlayAgents?: () => Promise<ReadonlyMap<string, string>>;
  /** SVC_PUBLIC_HOST: the host of the built-in play-agent's direct address when a request names none. */
  publicHost?: string;
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

/**
 * The service probes every manual address (GET https://host[:port]/health) from inside the network: only
 * role admin may aim that probe at a loopback, private-network or link-local host (docs/nodes.md).
 */
async function requireProbeRight(actor: Identity, host: string): Promise<void> {
  if (actor.role === 'admin') return;
  const inside = await nonPublicAddressOf(host);
  if (inside) {
    throw adminOnlySetting(
      'externalAddress/host',
      `only an administrator may set a manual address on a host that is not public (${host}: ${inside.range})`,
    );
  }
}

/** Node management (console, permission `node`) and the playback routes of an account. See docs/nodes.md. */
export class NodeManagementService {
  constructor(private readonly options: NodeManagementOptions) {}

  private get nodes(): NodesRepository {
    return this.options.nodes;
  }

  private now(): Date {
    return new Date(this.options.clock.now());
  }

  // --- Reading ----------------------------------------------------------------------------------------

  async list(): Promise<ListNodesResponse> {
    const [edition, slotsUsed, rows, ports] = await Promise.all([
      this.nodes.edition(),
      this.nodes.slotsUsed(),
      this.nodes.list(),
      this.registeredPorts(),
    ]);
    const now = this.options.clock.now();
    return { edition, slotsUsed, nodes: rows.map((row) => this.view(row, now, ports)) };
  }

  async get(nodeId: string): Promise<NodeView> {
    return this.viewOf(await this.require(nodeId));
  }

  /** The address a play-agent without public_base_url of its own answers players with: its external address. */
  async publicAddress(nodeId: string): Promise<NodePublicAddressResponse> {
    return { nodeId, publicBaseUrl: this.externalAddress(await this.require(nodeId))?.url ?? null };
  }

  /** "Show full command": the tokens in full and the install command lines. */
  async credentials(nodeId: string): Promise<NodeCredentials> {
    return this.credentialsOf(await this.require(nodeId));
  }

  // --- Creating ---------------------------------------------------------------------------------------

  async create(input: CreateNodeRequest, actor: Identity): Promise<CreateNodeResponse> {
    const nodeId = input.nodeId ? input.nodeId : newNodeId();
    const row =
      input.serviceType === 'manual-play-agent-endpoint'
        ? await this.createManual(nodeId, input, actor)
        : await this.createWorker(nodeId, input);
    return { node: await this.viewOf(row), credentials: this.credentialsOf(row) };
  }

  /** Manual addresses need no licence and take no slot, in every edition. */
  private async createManual(
    nodeId: string,
    input: Extract<CreateNodeRequest, { serviceType: 'manual-play-agent-endpoint' }>,
    actor: Identity,
  ): Promise<NodeRow> {
    await requireProbeRight(actor, input.externalAddress.host);
    await this.nodes.createManualEndpoint(
      {
        nodeId,
        name: input.name,
        host: input.externalAddress.host,
        port: input.externalAddress.port ?? null,
        note: input.note ?? '',
      },
      this.now(),
    );
    return this.require(nodeId);
  }

  /**
   * A worker node: DISTRIBUTED edition, a licence ACTIVE or GRACE after a refresh, and a free slot of the type.
   * The slot count, the listen-port choice and the insert run under one lock, so concurrent creations cannot
   * take the same last slot or port. Every refusal writes nothing.
   */
  private async createWorker(
    nodeId: string,
    input: Exclude<CreateNodeRequest, { serviceType: 'manual-play-agent-endpoint' }>,
  ): Promise<NodeRow> {
    if ((await this.nodes.edition()) !== 'DISTRIBUTED') throw this.standaloneRefusal();
    const facts = await this.refreshLicence();
    if (!NODE_CREATING_STATES.has(facts.state)) {
      throw conflict(
        'LICENSE_NOT_ACTIVE',
        `the licence is ${facts.state}: worker nodes can be created only while it is ACTIVE or GRACE`,
        { state: facts.state },
      );
    }
    const storage = input.serviceType === 'svc-control-storage';
    const max = storage ? facts.maxStorageNodes : facts.maxPlayAgentNodes;
    const requestedListen = input.serviceType === 'svc-play-agent' ? (input.listenPort ?? null) : null;

    return this.nodes.withSlotsLock(async (locked) => {
      // The edition cannot go back to STANDALONE, but read it under the lock anyway: it is cheap.
      if ((await locked.edition()) !== 'DISTRIBUTED') throw this.standaloneRefusal();
      if (await locked.get(nodeId)) throw conflict('NODE_ID_TAKEN', `node id ${nodeId} is taken`);
      const slots = await locked.slotsUsed();
      const used = storage ? slots.storage : slots.playAgent;
      if (used >= max) {
        throw conflict(
          'LICENSE_QUOTA_FULL',
          `licence quota full: ${used} of ${max} ${storage ? 'storage' : 'play-agent'} node slots are in use`,
          { serviceType: input.serviceType, used, max },
        );
      }
      let listenPort: number | null = null;
      if (input.serviceType === 'svc-play-agent') {
        listenPort = await this.chooseListenPort(locked, nodeId, input.expectedHost, requestedListen);
      }
      const row = await locked.insertWorker(
        {
          nodeId,
          serviceType: input.serviceType,
          name: input.name,
          expectedHost: input.expectedHost,
          expectedPort: input.expectedPort ?? null,
          listenPort,
          note: input.note ?? '',
          external: input.externalAddress
            ? {
                protocol: input.externalAddress.protocol,
                host: input.externalAddress.host,
                port: input.externalAddress.port ?? null,
              }
            : null,
        },
        this.now(),
      );
      if (!row) throw conflict('NODE_ID_TAKEN', `node id ${nodeId} is taken`);
      return row;
    });
  }

  /**
   * The listen port of a play-agent on `host`: the requested one unless another play-agent on that host uses
   * it (409); none requested: 19090, or the next port up that no play-agent on the host uses (19091, …).
   */
  private async chooseListenPort(
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
          { host, port: requested, nodeId: holder },
        );
      }
      return requested;
    }
    let port = DEFAULT_PLAY_AGENT_PORT;
    while (used.has(port)) port++;
    if (port > 65535) throw conflict('LISTEN_PORT_TAKEN', `no free listen port on ${host}`, { host });
    return port;
  }

  private standaloneRefusal(): AppError {
    return conflict(
      'EDITION_NOT_DISTRIBUTED',
      'a standalone install only adds manual addresses: storage and play-agent nodes need the DISTRIBUTED edition',
    );
  }

  private async refreshLicence(): Promise<LicenseFacts> {
    try {
      return await this.options.licence.refresh();
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError(
        503,
        'LICENSE_UNAVAILABLE',
        `the licence could not be refreshed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  // --- Editing ----------------------------------------------------------------------------------------

  async update(nodeId: string, input: UpdateNodeRequest, actor: Identity): Promise<NodeView> {
    const row = await this.require(nodeId);
    const placement =
      input.expectedHost !== undefined || input.expectedPort !== undefined || input.listenPort !== undefined;
    if (row.scope === 'EMBEDDED' && placement) {
      throw conflict(
        'NODE_EMBEDDED',
        'a built-in node keeps its host and ports: only its name, note and external address can change',
      );
    }
    const changes: NodeChanges = { name: input.name, note: input.note };

    if (row.service_type === 'manual-play-agent-endpoint') {
      if (placement) {
        throw badRequest(
          'a manual address has no expected host, expected port or listen port; change its address',
        );
      }
      if (input.externalAddress === null) throw badRequest('a manual address cannot lose its address');
      if (input.externalAddress !== undefined) {
        if (input.externalAddress.protocol !== 'https') throw badRequest('a manual address is https only');
        await requireProbeRight(actor, input.externalAddress.host);
        changes.external = {
          protocol: 'https',
          host: input.externalAddress.host,
          port: input.externalAddress.port ?? null,
        };
      }
      return this.viewOf(await this.applyUpdate(this.nodes, nodeId, changes));
    }

    if (row.service_type === 'svc-control-storage' && input.listenPort !== undefined) {
      throw badRequest('only play-agents have a listen port');
    }
    if (input.expectedHost !== undefined) changes.expectedHost = input.expectedHost;
    if (input.expectedPort !== undefined) changes.expectedPort = input.expectedPort;
    if (input.listenPort !== undefined) changes.listenPort = input.listenPort;
    if (input.externalAddress !== undefined) {
      changes.external =
        input.externalAddress === null
          ? null
          : {
              protocol: input.externalAddress.protocol,
              host: input.externalAddress.host,
              port: input.externalAddress.port ?? null,
            };
    }
    const movesPort =
      row.service_type === 'svc-play-agent' &&
      (input.expectedHost !== undefined || input.listenPort !== undefined);
    if (!movesPort) return this.viewOf(await this.applyUpdate(this.nodes, nodeId, changes));
    // The resulting host and port must be free among the other play-agents, checked under the slots lock.
    // The view is made after the lock: the embedded database serves one transaction at a time.
    const updated = await this.nodes.withSlotsLock(async (locked) => {
      const current = await locked.get(nodeId);
      if (!current) throw notFound('node');
      const host = input.expectedHost ?? current.expected_host;
      const port =
        input.listenPort !== undefined
          ? (input.listenPort ?? DEFAULT_PLAY_AGENT_PORT)
          : (current.listen_port ?? DEFAULT_PLAY_AGENT_PORT);
      if (host !== null) await this.chooseListenPort(locked, nodeId, host, port);
      return this.applyUpdate(locked, nodeId, changes);
    });
    return this.viewOf(updated);
  }

  private async applyUpdate(
    repository: NodesRepository,
    nodeId: string,
    changes: NodeChanges,
  ): Promise<NodeRow> {
    const updated = await repository.update(nodeId, changes, this.now());
    if (!updated) throw notFound('node');
    return updated;
  }

  // --- Deleting ---------------------------------------------------------------------------------------

  /**
   * Deletes a record (never a built-in one). "Send uninstall command" is answered with what really happened:
   * an ONLINE worker node is sent the uninstall command first (POST /api/node/lifecycle at its registered
   * address) and `sent` answers when it accepted; `unreachable` when the node is not ONLINE, `not-sent` when it
   * has no registered address, refused or did not answer (the uninstall script then has to be run on the
   * machine). The record is deleted in every case.
   */
  async remove(nodeId: string, sendUninstall: boolean, actor: Identity | null): Promise<DeleteNodeResponse> {
    const row = await this.require(nodeId);
    if (row.scope === 'EMBEDDED') {
      throw conflict(
        'NODE_EMBEDDED',
        'a built-in node cannot be deleted, uninstalled or upgraded on its own',
      );
    }
    const status = nodeStatusOf(this.directoryFacts(row), this.options.clock.now());
    let uninstall: DeleteNodeResponse['uninstall'];
    let message: string;
    if (!sendUninstall) {
      uninstall = 'not-requested';
      message = 'node record deleted';
    } else if (!isWorker(row.service_type)) {
      uninstall = 'not-applicable';
      message = 'manual address deleted; it has nothing installed to uninstall';
    } else if (status !== 'ONLINE') {
      uninstall = 'unreachable';
      message = `node record deleted; the node is ${status}, so no uninstall command could reach it: run the uninstall command on the machine`;
    } else {
      const sent = await this.sendLifecycle(nodeId, 'uninstall');
      if (sent.sent) {
        uninstall = 'sent';
        message =
          'node record deleted; the node accepted the uninstall command: it stops and deletes its work directory (log: <work>/log/lifecycle.log until it is deleted)';
      } else {
        uninstall = 'not-sent';
        message = `node record deleted; the uninstall command was not delivered (${this.notSentReason(sent)}): run the uninstall command on the machine`;
      }
    }
    const deleted = await this.nodes.deleteWithRemoval(nodeId, {
      removed_at: this.now(),
      removed_by: actor?.userId ?? null,
      uninstall_requested: sendUninstall,
      uninstall_result: uninstall,
    });
    if (!deleted) throw notFound('node');
    return { nodeId, deleted: true, uninstall, message };
  }

  // --- Remote upgrade and uninstall -------------------------------------------------------------------

  /**
   * POST /api/config/nodes/:nodeId/upgrade and …/uninstall: asks an ONLINE worker node to run its own upgrade
   * (upgrade-binary or upgrade-docker) or uninstall script. Built-in nodes (NODE_EMBEDDED), manual addresses
   * (NODE_MANUAL_ADDRESS) and nodes that are not ONLINE (NODE_UNREACHABLE) are refused with 409; a node
   * that refuses or does not answer gives 502 NODE_LIFECYCLE_FAILED. The record stays (uninstall then leaves
   * it offline until it is deleted). Progress shows in the node's status and its reported version.
   */
  async lifecycle(nodeId: string, action: NodeLifecycleAction): Promise<NodeLifecycleResponse> {
    const row = await this.require(nodeId);
    if (row.scope === 'EMBEDDED') {
      throw conflict(
        'NODE_EMBEDDED',
        'a built-in node cannot be deleted, uninstalled or upgraded on its own',
      );
    }
    if (!isWorker(row.service_type)) {
      throw conflict(
        'NODE_MANUAL_ADDRESS',
        'a manual address has nothing installed: it cannot be upgraded or uninstalled',
      );
    }
    if (action === 'upgrade' && row.disabled) {
      throw conflict('NODE_DISABLED', 'a disabled node gets no upgrade script: enable it first');
    }
    const status = nodeStatusOf(this.directoryFacts(row), this.options.clock.now());
    if (status !== 'ONLINE') {
      throw conflict(
        'NODE_UNREACHABLE',
        `the node is ${status}: the ${action} command reaches ONLINE nodes only; run the ${action} command on the machine`,
        { status },
      );
    }
    const sent = await this.sendLifecycle(nodeId, action);
    if (!sent.sent) {
      throw new AppError(
        502,
        'NODE_LIFECYCLE_FAILED',
        `the ${action} command was not accepted (${this.notSentReason(sent)}): run the ${action} command on the machine`,
        sent.reason === 'no-address' ? { reason: sent.reason } : { reason: sent.reason, detail: sent.detail },
      );
    }
    return { nodeId, action, accepted: true };
  }

  private async sendLifecycle(nodeId: string, action: NodeLifecycleAction): Promise<LifecycleSendResult> {
    if (!this.options.lifecycle) return { sent: false, reason: 'no-address' };
    return this.options.lifecycle.send(nodeId, action);
  }

  private notSentReason(result: Exclude<LifecycleSendResult, { sent: true }>): string {
    if (result.reason === 'no-address') return 'the node has no registered address';
    return `${result.baseUrl} ${result.reason === 'refused' ? 'refused it' : 'did not answer'}: ${result.detail}`;
  }

  // --- Manual addresses -------------------------------------------------------------------------------

  /** A new endpoint token; the old one stops resolving at once (every resolve reads the database). */
  async regenerateEndpointToken(nodeId: string): Promise<RegenerateEndpointTokenResponse> {
    const row = await this.require(nodeId);
    if (row.service_type !== 'manual-play-agent-endpoint') {
      throw new AppError(400, 'BAD_REQUEST', 'only manual addresses have an endpoint token');
    }
    const endpoint = await this.nodes.regenerateEndpointToken(nodeId, this.now());
    return { node: await this.get(nodeId), endpointToken: endpoint.endpointToken };
  }

  // --- Playback routes --------------------------------------------------------------------------------

  /**
   * The addresses an account enters into an Emby-compatible client: each play-agent node (its external
   * address, else its direct address) and each manual address, as far as the account's node access allows;
   * disabled records never. `entranceHost` is the host[:port] the account reached the console with.
   */
  async playbackRoutes(identity: Identity, entranceHost?: string): Promise<PlaybackRoutesResponse> {
    const policy = await this.options.playbackPolicies.policy(identity.userId);
    if (policy.disabled || policy.nodeAccess.mode === 'NONE') return { routes: [] };
    const allowed = (kind: 'node' | 'endpoint', id: string) =>
      policy.nodeAccess.mode === 'ALL' ||
      policy.nodeAccess.entries.some((entry) => entry.kind === kind && entry.id === id);
    const now = this.options.clock.now();
    const routes: PlaybackRoute[] = [];
    const [rows, ports] = await Promise.all([this.nodes.list(), this.registeredPorts()]);
    for (const row of rows) {
      if (row.disabled || row.service_type === 'svc-control-storage') continue;
      const status = nodeStatusOf(this.directoryFacts(row), now);
      const health = status === 'ONLINE' ? 'online' : status === 'offline' ? 'offline' : 'pending';
      if (row.service_type === 'manual-play-agent-endpoint') {
        if (!allowed('endpoint', row.node_id)) continue;
        routes.push({
          kind: 'endpoint',
          id: row.node_id,
          name: row.name,
          url: addressUrl('https', row.external_host ?? '', row.external_port),
          source: 'manual-address',
          health,
        });
        continue;
      }
      if (!allowed('node', row.node_id)) continue;
      const external = this.externalAddress(row);
      routes.push({
        kind: 'node',
        id: row.node_id,
        name: row.name,
        url: external ? external.url : this.directAddress(row, ports, entranceHost),
        source: external ? 'external-address' : 'direct-address',
        health,
      });
    }
    return { routes };
  }

  /**
   * Reverse-proxy rule 8: until an external address is set, users get the play-agent's direct address,
   * plain http (the play-agent has no TLS) at the port it really listens on. The host: a worker node's
   * expected host; the built-in node's the host the user reached the console with (the built-in
   * play-agent runs on that machine), else SVC_PUBLIC_HOST. Null when no host is known.
   */
  private directAddress(
    row: NodeRow,
    ports: ReadonlyMap<string, number>,
    entranceHost: string | undefined,
  ): string | null {
    const entrance = entranceHost ?? this.options.publicHost;
    const host =
      row.scope === 'EMBEDDED' && entrance !== undefined ? hostnameOf(entrance) : row.expected_host;
    return host ? addressUrl('http', host, this.listenPortOf(row, ports)) : null;
  }

  /** Play-agents: the port of their newest registration, else the configured one (default 19090). */
  private listenPortOf(row: NodeRow, ports: ReadonlyMap<string, number>): number {
    return ports.get(row.node_id) ?? row.listen_port ?? DEFAULT_PLAY_AGENT_PORT;
  }

  /** Node id → the port in the newest registration of each play-agent. */
  private async registeredPorts(): Promise<Map<string, number>> {
    const ports = new Map<string, number>();
    const addresses = (await this.options.registeredPlayAgents?.()) ?? new Map<string, string>();
    for (const [nodeId, baseUrl] of addresses) {
      const port = portOf(baseUrl);
      if (port !== undefined) ports.set(nodeId, port);
    }
    return ports;
  }

  // --- Shapes -----------------------------------------------------------------------------------------

  private async require(nodeId: string): Promise<NodeRow> {
    const row = await this.nodes.get(nodeId);
    if (!row) throw notFound('node');
    return row;
  }

  private directoryFacts(row: NodeRow) {
    return {
      serviceType: row.service_type,
      status: row.status,
      lastHeartbeatAt: row.last_heartbeat_at === null ? null : new Date(row.last_heartbeat_at),
      healthStatus: row.health_status,
    };
  }

  private externalAddress(row: NodeRow): ExternalAddress | null {
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

  private async viewOf(row: NodeRow): Promise<NodeView> {
    return this.view(row, this.options.clock.now(), await this.registeredPorts());
  }

  private view(row: NodeRow, now: number, ports: ReadonlyMap<string, number>): NodeView {
    const manual = row.service_type === 'manual-play-agent-endpoint';
    const playAgent = row.service_type === 'svc-play-agent';
    const listenPort = playAgent ? this.listenPortOf(row, ports) : null;
    const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
    return {
      nodeId: row.node_id,
      serviceType: row.service_type,
      name: row.name,
      scope: row.scope,
      status: nodeStatusOf(this.directoryFacts(row), now),
      lastHeartbeatAt: iso(row.last_heartbeat_at),
      disabled: row.disabled,
      expectedHost: manual ? null : row.expected_host,
      expectedPort: manual ? null : (row.expected_port ?? (playAgent ? listenPort : DEFAULT_STORAGE_PORT)),
      listenPort,
      note: row.note,
      externalAddress: this.externalAddress(row),
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

  private credentialsOf(row: NodeRow): NodeCredentials {
    const installCommands: InstallCommand[] = [];
    const worker = isWorker(row.service_type);
    if (isWorker(row.service_type) && row.scope === 'EXTERNAL' && row.node_token !== null) {
      for (const kind of INSTALL_KINDS[row.service_type]) {
        installCommands.push({
          kind,
          ffmpeg: false,
          command: installCommand(this.options.configUrl, row.node_token, kind, false),
        });
      }
      if (row.service_type === 'svc-play-agent') {
        for (const kind of INSTALL_KINDS[row.service_type].filter((k) => FFMPEG_KINDS.has(k))) {
          installCommands.push({
            kind,
            ffmpeg: true,
            command: installCommand(this.options.configUrl, row.node_token, kind, true),
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
      configUrl: worker ? this.options.configUrl : null,
      installCommands,
    };
  }
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i;

/**
 * The config service's address as nodes reach it (the `{config_url}` of the install commands):
 * `SVC_CONFIG_BASE_URL`, except that a loopback host there (the default `http://127.0.0.1:18085`) is replaced by
 * `SVC_ADVERTISE_HOST` when that is not loopback, since a node on another machine cannot reach loopback.
 */
export function nodeInstallBaseUrl(settings: { configBaseUrl: string; advertiseHost: string }): string {
  const base = settings.configBaseUrl.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return base;
  }
  if (
    LOOPBACK.test(url.hostname) &&
    !LOOPBACK.test(settings.advertiseHost) &&
    settings.advertiseHost !== '::1'
  ) {
    url.hostname = settings.advertiseHost;
    return url.toString().replace(/\/+$/, '');
  }
  return base;
}
