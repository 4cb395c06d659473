import {
  DEFAULT_PLAY_AGENT_PORT,
  type CreateNodeRequest,
  type CreateNodeResponse,
  type Identity,
  type ListNodesResponse,
  type NodeCredentials,
  type NodePublicAddressResponse,
  type NodeView,
  type RegenerateEndpointTokenResponse,
  type UpdateNodeRequest,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError, badRequest, notFound } from '../../../platform/http/errors.js';
import { NODE_CREATING_STATES, type LicenseFacts, type LicenseGate } from '../licenses/license-gate.js';
import type { ManualEndpointsRepository } from './manual-endpoints.repository.js';
import type { NewWorkerNode, NodeChanges, NodeRow } from './node-rows.js';
import { chooseListenPort, conflict, requireProbeRight } from './node-rules.js';
import { newNodeId } from './node-tokens.js';
import { externalAddressOf, type NodeViews } from './node-views.js';
import type { NodesRepository } from './nodes.repository.js';

export interface NodeManagementOptions {
  nodes: NodesRepository;
  manualEndpoints: ManualEndpointsRepository;
  licence: LicenseGate;
  clock: Clock;
  views: NodeViews;
}

/**
 * Node records of the console (permission `node`): reading, creating and editing them, and the endpoint
 * tokens of manual addresses. Deleting and remote upgrade/uninstall: node-lifecycle.service.ts. See
 * docs/nodes.md.
 */
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
      this.options.views.registeredPorts(),
    ]);
    const now = this.options.clock.now();
    return {
      edition,
      slotsUsed,
      nodes: rows.map((row) => this.options.views.view(row, now, ports, edition)),
    };
  }

  async get(nodeId: string): Promise<NodeView> {
    return this.options.views.viewOf(await this.require(nodeId));
  }

  /** The address a play-agent without public_base_url of its own answers players with: its external address. */
  async publicAddress(nodeId: string): Promise<NodePublicAddressResponse> {
    return { nodeId, publicBaseUrl: externalAddressOf(await this.require(nodeId))?.url ?? null };
  }

  /** "Show full command": the tokens in full and the install command lines. */
  async credentials(nodeId: string): Promise<NodeCredentials> {
    return this.options.views.credentialsOf(await this.require(nodeId));
  }

  // --- Creating ---------------------------------------------------------------------------------------

  async create(input: CreateNodeRequest, actor: Identity): Promise<CreateNodeResponse> {
    const nodeId = input.nodeId ? input.nodeId : newNodeId();
    const row =
      input.serviceType === 'manual-play-agent-endpoint'
        ? await this.createManual(nodeId, input, actor)
        : await this.createWorker(nodeId, input);
    return { node: await this.options.views.viewOf(row), credentials: this.options.views.credentialsOf(row) };
  }

  /** Manual addresses need no licence and take no slot, in every edition. */
  private async createManual(
    nodeId: string,
    input: Extract<CreateNodeRequest, { serviceType: 'manual-play-agent-endpoint' }>,
    actor: Identity,
  ): Promise<NodeRow> {
    await requireProbeRight(actor, input.externalAddress.host);
    await this.options.manualEndpoints.create(
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
    if ((await this.nodes.edition()) !== 'DISTRIBUTED') throw standaloneRefusal();
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
      if ((await locked.edition()) !== 'DISTRIBUTED') throw standaloneRefusal();
      const existing = await locked.get(nodeId);
      // A former built-in node of this type is taken over (same id); any other record keeps its id.
      const takeOver = existing !== undefined && isFormerBuiltIn(existing, input.serviceType);
      if (existing && !takeOver) throw conflict('NODE_ID_TAKEN', `node id ${nodeId} is taken`);
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
        listenPort = await chooseListenPort(locked, nodeId, input.expectedHost, requestedListen);
      }
      const worker: NewWorkerNode = {
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
      };
      const row = takeOver
        ? await locked.takeOverBuiltIn(worker, this.now())
        : await locked.insertWorker(worker, this.now());
      if (!row) throw conflict('NODE_ID_TAKEN', `node id ${nodeId} is taken`);
      return row;
    });
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
      return this.options.views.viewOf(await this.applyUpdate(this.nodes, nodeId, changes));
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
    if (!movesPort) return this.options.views.viewOf(await this.applyUpdate(this.nodes, nodeId, changes));
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
      if (host !== null) await chooseListenPort(locked, nodeId, host, port);
      return this.applyUpdate(locked, nodeId, changes);
    });
    return this.options.views.viewOf(updated);
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

  // --- Manual addresses -------------------------------------------------------------------------------

  /** A new endpoint token; the old one stops resolving at once (every resolve reads the database). */
  async regenerateEndpointToken(nodeId: string): Promise<RegenerateEndpointTokenResponse> {
    const row = await this.require(nodeId);
    if (row.service_type !== 'manual-play-agent-endpoint') {
      throw new AppError(400, 'BAD_REQUEST', 'only manual addresses have an endpoint token');
    }
    const endpoint = await this.options.manualEndpoints.regenerateToken(nodeId, this.now());
    return { node: await this.get(nodeId), endpointToken: endpoint.endpointToken };
  }

  private async require(nodeId: string): Promise<NodeRow> {
    const row = await this.nodes.get(nodeId);
    if (!row) throw notFound('node');
    return row;
  }
}

/**
 * A built-in record of the same type: on a DISTRIBUTED install (checked by the caller) creating a worker node with
 * its id takes the record over, so that media sources and user authorizations naming the id keep working once
 * the node is installed on a target machine (spec, "Migration rules between forms").
 */
function isFormerBuiltIn(row: NodeRow, serviceType: NodeRow['service_type']): boolean {
  return row.scope === 'EMBEDDED' && row.service_type === serviceType;
}

function standaloneRefusal(): AppError {
  return conflict(
    'EDITION_NOT_DISTRIBUTED',
    'a standalone install only adds manual addresses: storage and play-agent nodes need the DISTRIBUTED edition',
  );
}
