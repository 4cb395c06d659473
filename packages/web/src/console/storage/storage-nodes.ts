import type { NodeView } from '@svc/contracts';

/**
 * Which storage node the console talks to. The gateway forwards /api/storage to the node named by
 * X-Storage-Node-Id and to the built-in one when none is named (in standalone the console's entrance
 * fixes it), so the header is sent only when several storage nodes exist (docs/architecture.md).
 */

/** The built-in storage node's id (standalone and the control plane's own node). */
export const DEFAULT_STORAGE_NODE_ID = 'node-local-storage';
export const STORAGE_NODE_HEADER = 'x-storage-node-id';

export interface StorageNodeOption {
  nodeId: string;
  name: string;
  online: boolean;
  builtIn: boolean;
}

/** The storage nodes of the node list that can be used (not disabled), the built-in one first. */
export function storageNodeOptions(nodes: readonly NodeView[]): StorageNodeOption[] {
  return nodes
    .filter((node) => node.serviceType === 'svc-control-storage' && !node.disabled)
    .map((node) => ({
      nodeId: node.nodeId,
      name: node.name,
      online: node.status === 'ONLINE',
      builtIn: node.scope === 'EMBEDDED',
    }))
    .sort((a, b) => Number(b.builtIn) - Number(a.builtIn) || a.name.localeCompare(b.name));
}

/** The node to use when the user has not chosen one: the built-in one, else the first online one. */
export function defaultStorageNode(options: readonly StorageNodeOption[]): string {
  return (
    options.find((option) => option.builtIn)?.nodeId ??
    options.find((option) => option.online)?.nodeId ??
    options[0]?.nodeId ??
    DEFAULT_STORAGE_NODE_ID
  );
}

/** Headers for a request to a storage node: the node's id only when there is a choice to make. */
export function storageNodeHeaders(nodeId: string | undefined, several: boolean): Record<string, string> {
  return several && nodeId ? { [STORAGE_NODE_HEADER]: nodeId } : {};
}
