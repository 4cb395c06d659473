import type {
  EmbeddedIdReminder,
  LegacyNodeType,
  LegacyNodeTypeReport,
  LegacyNodesReport,
  PromoteLegacyNodesRequest,
  PromoteLegacyNodesResponse,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError, badRequest } from '../../../platform/http/errors.js';
import type { EmbeddedNodeIds } from './deployment.service.js';
import type { NodeRow } from '../nodes/node-rows.js';
import type { NodesRepository } from '../nodes/nodes.repository.js';
import { nodeStatusOf } from '../nodes/nodes.service.js';

const TYPES: readonly {
  key: 'storage' | 'playAgent';
  serviceType: LegacyNodeType;
  variable: EmbeddedIdReminder['variable'];
}[] = [
  { key: 'storage', serviceType: 'svc-control-storage', variable: 'SVC_EMBEDDED_STORAGE_NODE_ID' },
  { key: 'playAgent', serviceType: 'svc-play-agent', variable: 'SVC_EMBEDDED_PLAY_AGENT_NODE_ID' },
];

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The refusal on a DISTRIBUTED install: the report and the promotion belong to the standalone image. */
export const notStandalone = () =>
  new AppError(
    409,
    'EDITION_NOT_STANDALONE',
    'legacy nodes are promoted only on a STANDALONE install (standalone image only)',
  );

/**
 * Legacy nodes (docs/nodes.md "Legacy nodes"): the EXTERNAL storage and play-agent records a legacy
 * multi-container install left behind, and their promotion to the built-in (EMBEDDED) nodes of a standalone
 * install, with the node ids kept. Only node ids are ever quoted; no token is shown.
 */
export class LegacyNodesService {
  constructor(
    private readonly options: { nodes: NodesRepository; embeddedNodes: EmbeddedNodeIds; clock: Clock },
  ) {}

  /** The read-only impact report; 409 EDITION_NOT_STANDALONE on a DISTRIBUTED install. */
  async report(): Promise<LegacyNodesReport> {
    if ((await this.options.nodes.edition()) !== 'STANDALONE') throw notStandalone();
    return this.reportOf(await this.options.nodes.externalWorkers());
  }

  /**
   * Promotes the confirmed candidates in one transaction (under the edition's row lock): each chosen record
   * becomes EMBEDDED, the other EXTERNAL records of its type are disabled. Any refusal changes nothing.
   */
  async promote(input: PromoteLegacyNodesRequest): Promise<PromoteLegacyNodesResponse> {
    // The schema already asks for confirm === true; checked again so no other caller can skip it.
    if (input.confirm !== true)
      throw badRequest('promotion needs explicit confirmation: confirm must be true');
    const chosen = TYPES.flatMap((type) => {
      const nodeId = type.key === 'storage' ? input.storageNodeId : input.playAgentNodeId;
      return nodeId === undefined ? [] : [{ ...type, nodeId }];
    });
    if (chosen.length === 0) {
      throw badRequest('name storageNodeId, playAgentNodeId or both: nothing to promote');
    }
    const now = new Date(this.options.clock.now());
    const outcome = await this.options.nodes.withEditionLock(async (locked, edition) => {
      if (edition !== 'STANDALONE') throw notStandalone();
      const before = this.reportOf(await locked.externalWorkers());
      for (const choice of chosen) {
        const candidates = before[choice.key].candidates;
        if (!candidates.includes(choice.nodeId)) {
          throw new AppError(
            400,
            'LEGACY_NODE_NOT_CANDIDATE',
            `${choice.nodeId} is not a ${choice.serviceType} candidate of this install`,
            { serviceType: choice.serviceType, nodeId: choice.nodeId, candidates },
          );
        }
      }
      const promoted: PromoteLegacyNodesResponse['promoted'] = [];
      const disabled: PromoteLegacyNodesResponse['disabled'] = [];
      for (const choice of chosen) {
        const others = await locked.promoteExternal(choice.serviceType, choice.nodeId, now);
        // Checked under the lock just before, so this cannot happen; throwing rolls everything back.
        if (others === undefined) throw new Error(`legacy node ${choice.nodeId} vanished during promotion`);
        promoted.push({ serviceType: choice.serviceType, nodeId: choice.nodeId });
        disabled.push(...others.map((nodeId) => ({ serviceType: choice.serviceType, nodeId })));
      }
      return { promoted, disabled, report: this.reportOf(await locked.externalWorkers()) };
    });

    const environment = chosen
      .filter((choice) => this.embeddedId(choice.key) !== choice.nodeId)
      .map((choice) => ({
        variable: choice.variable,
        current: this.embeddedId(choice.key),
        required: choice.nodeId,
      }));
    const reminder =
      environment.length === 0
        ? null
        : `set ${environment.map((entry) => `${entry.variable}=${entry.required}`).join(' and ')} in the ` +
          'deployment and restart it: the service cannot change its own environment';
    return { ...outcome, environment, reminder };
  }

  private embeddedId(key: 'storage' | 'playAgent'): string {
    return this.options.embeddedNodes[key];
  }

  private reportOf(rows: readonly NodeRow[]): LegacyNodesReport {
    const now = this.options.clock.now();
    const typeReport = (type: (typeof TYPES)[number]): LegacyNodeTypeReport => {
      const external = rows.filter((row) => row.service_type === type.serviceType);
      const candidates = external.filter((row) => !row.disabled).map((row) => row.node_id);
      const embeddedNodeId = this.embeddedId(type.key);
      const others = (kept: string) => candidates.filter((id) => id !== kept);
      let effect: string;
      if (candidates.length === 0) {
        effect = 'no candidate: nothing to promote';
      } else if (candidates.length === 1) {
        effect =
          `${candidates[0]} would become the built-in node (scope EMBEDDED, id kept)` +
          (external.length > 1 ? '; the disabled records stay as they are' : '');
      } else {
        effect =
          `a choice is required among ${candidates.join(', ')}: the chosen one becomes the built-in node ` +
          `(scope EMBEDDED, id kept), the others are disabled and their records kept (e.g. choosing ` +
          `${candidates[0]} disables ${others(candidates[0]!).join(', ')})`;
      }
      return {
        serviceType: type.serviceType,
        embeddedNodeId,
        externalNodes: external.map((row) => ({
          nodeId: row.node_id,
          name: row.name,
          status: nodeStatusOf(
            {
              serviceType: row.service_type,
              status: row.status,
              lastHeartbeatAt: row.last_heartbeat_at === null ? null : new Date(row.last_heartbeat_at),
              healthStatus: row.health_status,
            },
            now,
          ),
          lastHeartbeatAt: iso(row.last_heartbeat_at),
          disabled: row.disabled,
        })),
        candidates,
        promotable: candidates.length === 1,
        choiceRequired: candidates.length > 1,
        embeddedIdMatches: candidates.length === 1 ? candidates[0] === embeddedNodeId : null,
        effect,
      };
    };
    return {
      edition: 'STANDALONE',
      storage: typeReport(TYPES[0]!),
      playAgent: typeReport(TYPES[1]!),
    };
  }
}
