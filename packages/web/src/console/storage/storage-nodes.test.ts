import { describe, expect, it } from 'vitest';
import type { NodeView } from '@svc/contracts';
import {
  DEFAULT_STORAGE_NODE_ID,
  defaultStorageNode,
  storageNodeHeaders,
  storageNodeOptions,
} from './storage-nodes.js';

function node(patch: Partial<NodeView>): NodeView {
  return {
    nodeId: 'node-x',
    serviceType: 'svc-control-storage',
    name: 'x',
    scope: 'EXTERNAL',
    status: 'ONLINE',
    lastHeartbeatAt: null,
    disabled: false,
    expectedHost: null,
    expectedPort: null,
    listenPort: null,
    note: '',
    externalAddress: null,
    tokens: { nodeToken: null, registryToken: null, endpointToken: null },
    probe: null,
    createdAt: '',
    updatedAt: '',
    ...patch,
  };
}

describe('storage nodes', () => {
  it('lists usable storage nodes, the built-in one first', () => {
    const options = storageNodeOptions([
      node({ nodeId: 'node-b', name: 'B' }),
      node({ nodeId: 'node-agent', serviceType: 'svc-play-agent' }),
      node({ nodeId: 'node-off', disabled: true }),
      node({ nodeId: 'node-local-storage', name: 'Z built-in', scope: 'EMBEDDED' }),
    ]);
    expect(options.map((option) => option.nodeId)).toEqual(['node-local-storage', 'node-b']);
  });

  it('picks a default node', () => {
    expect(defaultStorageNode([])).toBe(DEFAULT_STORAGE_NODE_ID);
    expect(
      defaultStorageNode(
        storageNodeOptions([
          node({ nodeId: 'node-down', name: 'A', status: 'offline' }),
          node({ nodeId: 'node-up', name: 'B' }),
        ]),
      ),
    ).toBe('node-up');
  });

  it('names the node only when several exist', () => {
    expect(storageNodeHeaders('node-b', false)).toEqual({});
    expect(storageNodeHeaders(undefined, true)).toEqual({});
    expect(storageNodeHeaders('node-b', true)).toEqual({ 'x-storage-node-id': 'node-b' });
  });
});
