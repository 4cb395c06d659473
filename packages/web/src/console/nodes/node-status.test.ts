import { describe, expect, it } from 'vitest';
import {
  INSTALL_ON_TARGET_PARAMS,
  installOnTargetLink,
  canDelete,
  canSendUninstallOnDelete,
  editableFields,
  lifecycleBlock,
  probeColor,
  serviceTypeKey,
  sortNodes,
  statusColor,
} from './node-status.js';

const worker = {
  scope: 'EXTERNAL' as const,
  serviceType: 'svc-play-agent' as const,
  disabled: false,
  status: 'ONLINE' as const,
};

describe('node state badges', () => {
  it('colours ONLINE green, offline red and PENDING yellow', () => {
    expect(statusColor('ONLINE')).toBe('green');
    expect(statusColor('offline')).toBe('red');
    expect(statusColor('PENDING')).toBe('yellow');
  });

  it('colours probes by their state, grey before the first', () => {
    expect(probeColor(null)).toBe('gray');
    expect(probeColor({ state: 'online', checkedAt: '2024-01-01T00:00:00Z', detail: 'HTTP 200' })).toBe(
      'green',
    );
    expect(probeColor({ state: 'offline', checkedAt: '2024-01-01T00:00:00Z', detail: 'HTTP 503' })).toBe(
      'red',
    );
  });

  it('names every service type', () => {
    expect(serviceTypeKey('svc-control-storage')).toBe('type.storage');
    expect(serviceTypeKey('svc-play-agent')).toBe('type.playAgent');
    expect(serviceTypeKey('manual-play-agent-endpoint')).toBe('type.manual');
  });
});

describe('what may be done with a node', () => {
  it('allows upgrade and uninstall of an ONLINE external worker only', () => {
    expect(lifecycleBlock(worker, 'upgrade')).toBeNull();
    expect(lifecycleBlock(worker, 'uninstall')).toBeNull();
    expect(lifecycleBlock({ ...worker, scope: 'EMBEDDED' }, 'upgrade')).toBe('embedded');
    expect(lifecycleBlock({ ...worker, scope: 'EMBEDDED' }, 'uninstall')).toBe('embedded');
    expect(lifecycleBlock({ ...worker, serviceType: 'manual-play-agent-endpoint' }, 'uninstall')).toBe(
      'manual',
    );
    expect(lifecycleBlock({ ...worker, status: 'offline' }, 'upgrade')).toBe('not-online');
    expect(lifecycleBlock({ ...worker, status: 'PENDING' }, 'uninstall')).toBe('not-online');
  });

  it('refuses the upgrade of a disabled node but still lets it uninstall', () => {
    expect(lifecycleBlock({ ...worker, disabled: true }, 'upgrade')).toBe('disabled');
    expect(lifecycleBlock({ ...worker, disabled: true }, 'uninstall')).toBeNull();
  });

  it('never deletes a built-in node, and sends uninstall only to external workers', () => {
    expect(canDelete({ scope: 'EMBEDDED' })).toBe(false);
    expect(canDelete({ scope: 'EXTERNAL' })).toBe(true);
    expect(canSendUninstallOnDelete(worker)).toBe(true);
    expect(canSendUninstallOnDelete({ ...worker, scope: 'EMBEDDED' })).toBe(false);
    expect(canSendUninstallOnDelete({ ...worker, serviceType: 'manual-play-agent-endpoint' })).toBe(false);
  });

  it('offers host and ports only where the server accepts them', () => {
    expect(editableFields(worker)).toEqual({
      expectedAddress: true,
      listenPort: true,
      externalAddressRequired: false,
    });
    expect(editableFields({ ...worker, serviceType: 'svc-control-storage' }).listenPort).toBe(false);
    expect(editableFields({ ...worker, scope: 'EMBEDDED' })).toEqual({
      expectedAddress: false,
      listenPort: false,
      externalAddressRequired: false,
    });
    expect(editableFields({ ...worker, serviceType: 'manual-play-agent-endpoint' })).toEqual({
      expectedAddress: false,
      listenPort: false,
      externalAddressRequired: true,
    });
  });
});

describe('sortNodes', () => {
  it('lists built-in nodes first, then storage, play-agents and manual addresses by name', () => {
    const nodes = [
      {
        nodeId: 'node-m',
        name: 'a',
        scope: 'EXTERNAL' as const,
        serviceType: 'manual-play-agent-endpoint' as const,
      },
      { nodeId: 'node-p2', name: 'b', scope: 'EXTERNAL' as const, serviceType: 'svc-play-agent' as const },
      { nodeId: 'node-p1', name: 'a', scope: 'EXTERNAL' as const, serviceType: 'svc-play-agent' as const },
      { nodeId: 'node-e', name: 'z', scope: 'EMBEDDED' as const, serviceType: 'svc-play-agent' as const },
      {
        nodeId: 'node-s',
        name: 'z',
        scope: 'EXTERNAL' as const,
        serviceType: 'svc-control-storage' as const,
      },
    ];
    expect(sortNodes(nodes).map((node) => node.nodeId)).toEqual([
      'node-e',
      'node-s',
      'node-p1',
      'node-p2',
      'node-m',
    ]);
    expect(nodes[0]?.nodeId).toBe('node-m');
  });
});

describe('install on a target machine', () => {
  it('links a node awaiting install to the create form with its id and type, and no other node', () => {
    const node = {
      nodeId: 'node-local-play-agent',
      serviceType: 'svc-play-agent',
      status: 'AWAITING_INSTALL',
    } as const;
    const link = installOnTargetLink(node);
    expect(link).toBe('/console/nodes?install=node-local-play-agent&type=svc-play-agent');
    const query = new URLSearchParams(link!.split('?')[1]);
    expect(query.get(INSTALL_ON_TARGET_PARAMS.nodeId)).toBe('node-local-play-agent');
    expect(query.get(INSTALL_ON_TARGET_PARAMS.serviceType)).toBe('svc-play-agent');
    for (const status of ['ONLINE', 'PENDING', 'offline'] as const)
      expect(installOnTargetLink({ ...node, status })).toBeNull();
  });
});
