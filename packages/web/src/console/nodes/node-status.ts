import type { NodeServiceType, NodeView } from '@svc/contracts';

export type NodeStatus = NodeView['status'];

/**
 * Badge colour of a node's state: ONLINE green, offline red, PENDING (never seen yet) yellow, AWAITING_INSTALL
 * (a former built-in node of a DISTRIBUTED install, to install on a target machine) orange.
 */
export function statusColor(status: NodeStatus): string {
  switch (status) {
    case 'ONLINE':
      return 'green';
    case 'offline':
      return 'red';
    case 'PENDING':
      return 'yellow';
    case 'AWAITING_INSTALL':
      return 'orange';
  }
}

/** Badge colour of a manual address's last /health probe (grey before the first one). */
export function probeColor(probe: NodeView['probe']): string {
  if (!probe) return 'gray';
  return probe.state === 'online' ? 'green' : 'red';
}

/** Message key of a service type (in the `nodes` namespace). */
export function serviceTypeKey(type: NodeServiceType): string {
  switch (type) {
    case 'svc-control-storage':
      return 'type.storage';
    case 'svc-play-agent':
      return 'type.playAgent';
    case 'manual-play-agent-endpoint':
      return 'type.manual';
  }
}

export function isManualAddress(node: Pick<NodeView, 'serviceType'>): boolean {
  return node.serviceType === 'manual-play-agent-endpoint';
}

export function isEmbedded(node: Pick<NodeView, 'scope'>): boolean {
  return node.scope === 'EMBEDDED';
}

export type LifecycleAction = 'upgrade' | 'uninstall';

/** Why the console cannot ask a node to upgrade or uninstall itself (the server's refusals, checked first). */
export type LifecycleBlock = 'embedded' | 'manual' | 'disabled' | 'not-online';

/**
 * The reason a remote upgrade or uninstall would be refused, or null when it may be sent:
 * built-in nodes and manual addresses never; a disabled node gets no upgrade; only ONLINE nodes answer.
 */
export function lifecycleBlock(
  node: Pick<NodeView, 'scope' | 'serviceType' | 'disabled' | 'status'>,
  action: LifecycleAction,
): LifecycleBlock | null {
  if (isEmbedded(node)) return 'embedded';
  if (isManualAddress(node)) return 'manual';
  if (action === 'upgrade' && node.disabled) return 'disabled';
  if (node.status !== 'ONLINE') return 'not-online';
  return null;
}

/** Built-in nodes are never deleted. */
export function canDelete(node: Pick<NodeView, 'scope'>): boolean {
  return !isEmbedded(node);
}

/** "Send uninstall command" on delete makes sense only for worker nodes that are not built in. */
export function canSendUninstallOnDelete(node: Pick<NodeView, 'scope' | 'serviceType'>): boolean {
  return !isEmbedded(node) && !isManualAddress(node);
}

/** Which fields the edit form offers: the server refuses the others (NODE_EMBEDDED, 400). */
export interface EditableFields {
  expectedAddress: boolean;
  listenPort: boolean;
  /** A manual address's address is https only and cannot be removed. */
  externalAddressRequired: boolean;
}

export function editableFields(node: Pick<NodeView, 'scope' | 'serviceType'>): EditableFields {
  const worker = !isManualAddress(node);
  return {
    expectedAddress: worker && !isEmbedded(node),
    listenPort: node.serviceType === 'svc-play-agent' && !isEmbedded(node),
    externalAddressRequired: !worker,
  };
}

/** Nodes sorted for the list: built-in first, then by type, then by name. */
export function sortNodes<T extends Pick<NodeView, 'scope' | 'serviceType' | 'name' | 'nodeId'>>(
  nodes: readonly T[],
): T[] {
  const typeOrder: Record<NodeServiceType, number> = {
    'svc-control-storage': 0,
    'svc-play-agent': 1,
    'manual-play-agent-endpoint': 2,
  };
  return [...nodes].sort(
    (a, b) =>
      Number(b.scope === 'EMBEDDED') - Number(a.scope === 'EMBEDDED') ||
      typeOrder[a.serviceType] - typeOrder[b.serviceType] ||
      a.name.localeCompare(b.name) ||
      a.nodeId.localeCompare(b.nodeId),
  );
}

/** Query of /console/nodes that opens the create form pre-filled with a node's id and type. */
export const INSTALL_ON_TARGET_PARAMS = { nodeId: 'install', serviceType: 'type' } as const;

/**
 * For a node awaiting install on a target machine: the nodes page address whose create form is pre-filled with
 * the same id and type; null for any other node.
 */
export function installOnTargetLink(
  node: Pick<NodeView, 'nodeId' | 'serviceType' | 'status'>,
): string | null {
  if (node.status !== 'AWAITING_INSTALL') return null;
  const query = new URLSearchParams({
    [INSTALL_ON_TARGET_PARAMS.nodeId]: node.nodeId,
    [INSTALL_ON_TARGET_PARAMS.serviceType]: node.serviceType,
  });
  return `/console/nodes?${query.toString()}`;
}
