import type {
  DeleteNodeResponse,
  Identity,
  NodeLifecycleAction,
  NodeLifecycleResponse,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError, notFound } from '../../../platform/http/errors.js';
import type { LifecycleSendResult, NodeLifecycleSender } from './node-lifecycle.client.js';
import type { NodeRow } from './node-rows.js';
import { conflict, embeddedRefusal, isWorker } from './node-rules.js';
import { directoryFacts } from './node-views.js';
import type { NodesRepository } from './nodes.repository.js';
import { nodeStatusOf } from './nodes.service.js';

export interface NodeLifecycleOptions {
  nodes: NodesRepository;
  clock: Clock;
  /** Sends upgrade and uninstall commands to ONLINE worker nodes; without it none is sent (`not-sent`). */
  lifecycle?: NodeLifecycleSender;
}

/** Deleting node records and the remote upgrade and uninstall of worker nodes (docs/node-install.md). */
export class NodeLifecycleService {
  constructor(private readonly options: NodeLifecycleOptions) {}

  /**
   * Deletes a record (never a built-in one). "Send uninstall command" is answered with what really happened:
   * an ONLINE worker node is sent the uninstall command first (POST /api/node/lifecycle at its registered
   * address) and `sent` answers when it accepted; `unreachable` when the node is not ONLINE, `not-sent` when it
   * has no registered address, refused or did not answer (the uninstall script then has to be run on the
   * machine). The record is deleted in every case.
   */
  async remove(nodeId: string, sendUninstall: boolean, actor: Identity | null): Promise<DeleteNodeResponse> {
    const row = await this.require(nodeId);
    if (row.scope === 'EMBEDDED') throw embeddedRefusal();
    const status = nodeStatusOf(directoryFacts(row), this.options.clock.now());
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
      const sent = await this.send(nodeId, 'uninstall');
      if (sent.sent) {
        uninstall = 'sent';
        message =
          'node record deleted; the node accepted the uninstall command: it stops and deletes its work directory (log: <work>/log/lifecycle.log until it is deleted)';
      } else {
        uninstall = 'not-sent';
        message = `node record deleted; the uninstall command was not delivered (${notSentReason(sent)}): run the uninstall command on the machine`;
      }
    }
    const deleted = await this.options.nodes.deleteWithRemoval(nodeId, {
      removed_at: new Date(this.options.clock.now()),
      removed_by: actor?.userId ?? null,
      uninstall_requested: sendUninstall,
      uninstall_result: uninstall,
    });
    if (!deleted) throw notFound('node');
    return { nodeId, deleted: true, uninstall, message };
  }

  /**
   * POST /api/config/nodes/:nodeId/upgrade and …/uninstall: asks an ONLINE worker node to run its own upgrade
   * (upgrade-binary or upgrade-docker) or uninstall script. Built-in nodes (NODE_EMBEDDED), manual addresses
   * (NODE_MANUAL_ADDRESS) and nodes that are not ONLINE (NODE_UNREACHABLE) are refused with 409; a node
   * that refuses or does not answer gives 502 NODE_LIFECYCLE_FAILED. The record stays (uninstall then leaves
   * it offline until it is deleted). Progress shows in the node's status and its reported version.
   */
  async lifecycle(nodeId: string, action: NodeLifecycleAction): Promise<NodeLifecycleResponse> {
    const row = await this.require(nodeId);
    if (row.scope === 'EMBEDDED') throw embeddedRefusal();
    if (!isWorker(row.service_type)) {
      throw conflict(
        'NODE_MANUAL_ADDRESS',
        'a manual address has nothing installed: it cannot be upgraded or uninstalled',
      );
    }
    if (action === 'upgrade' && row.disabled) {
      throw conflict('NODE_DISABLED', 'a disabled node gets no upgrade script: enable it first');
    }
    const status = nodeStatusOf(directoryFacts(row), this.options.clock.now());
    if (status !== 'ONLINE') {
      throw conflict(
        'NODE_UNREACHABLE',
        `the node is ${status}: the ${action} command reaches ONLINE nodes only; run the ${action} command on the machine`,
        { status },
      );
    }
    const sent = await this.send(nodeId, action);
    if (!sent.sent) {
      throw new AppError(
        502,
        'NODE_LIFECYCLE_FAILED',
        `the ${action} command was not accepted (${notSentReason(sent)}): run the ${action} command on the machine`,
        sent.reason === 'no-address' ? { reason: sent.reason } : { reason: sent.reason, detail: sent.detail },
      );
    }
    return { nodeId, action, accepted: true };
  }

  private async send(nodeId: string, action: NodeLifecycleAction): Promise<LifecycleSendResult> {
    if (!this.options.lifecycle) return { sent: false, reason: 'no-address' };
    return this.options.lifecycle.send(nodeId, action);
  }

  private async require(nodeId: string): Promise<NodeRow> {
    const row = await this.options.nodes.get(nodeId);
    if (!row) throw notFound('node');
    return row;
  }
}

function notSentReason(result: Exclude<LifecycleSendResult, { sent: true }>): string {
  if (result.reason === 'no-address') return 'the node has no registered address';
  return `${result.baseUrl} ${result.reason === 'refused' ? 'refused it' : 'did not answer'}: ${result.detail}`;
}
