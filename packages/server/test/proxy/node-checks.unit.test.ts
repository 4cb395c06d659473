import type { NodeView } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { nodeChecks } from '../../src/doctor/node-checks.js';

const node = (fields: Partial<NodeView>): NodeView => ({
  nodeId: 'node-a',
  serviceType: 'svc-play-agent',
  name: 'a',
  scope: 'EXTERNAL',
  status: 'ONLINE',
  lastHeartbeatAt: null,
  disabled: false,
  expectedHost: '10.0.0.5',
  expectedPort: 19090,
  listenPort: 19090,
  note: '',
  externalAddress: null,
  tokens: { nodeToken: null, registryToken: null, endpointToken: null },
  probe: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...fields,
});
const status = (nodes: NodeView[], playback?: URL) =>
  Object.fromEntries(nodeChecks(nodes, playback).map((result) => [result.id, result.status]));

describe('the doctor checks read from node records', () => {
  it('passes a healthy deployment', () => {
    const playback = new URL('https://play.example.com');
    const address = {
      protocol: 'https' as const,
      host: 'play.example.com',
      port: null,
      url: 'https://play.example.com',
    };
    expect(status([node({ externalAddress: address })], playback)).toEqual({
      'manual-address-reachable': 'ok',
      'node-pending': 'ok',
      'play-agent-port': 'ok',
      'external-address': 'ok',
    });
  });

  it('names an offline manual address, a PENDING node, a port conflict and the direct address', () => {
    const manualAddress = {
      protocol: 'https' as const,
      host: 'play.example.com',
      port: null,
      url: 'https://play.example.com',
    };
    const results = nodeChecks(
      [
        node({
          nodeId: 'node-manual',
          serviceType: 'manual-play-agent-endpoint',
          status: 'offline',
          expectedHost: null,
          externalAddress: manualAddress,
          probe: { state: 'offline', checkedAt: '2026-01-01T00:00:00.000Z', detail: 'ENOTFOUND' },
        }),
        node({
          nodeId: 'node-new',
          serviceType: 'svc-control-storage',
          status: 'PENDING',
          expectedHost: '10.0.0.9',
        }),
        node({ nodeId: 'node-one' }),
        node({ nodeId: 'node-two', expectedHost: '10.0.0.5' }),
      ],
      new URL('https://play.example.com'),
    );
    const byId = new Map(results.map((result) => [result.id, result]));
    expect(byId.get('manual-address-reachable')?.status).toBe('problem');
    expect(byId.get('manual-address-reachable')?.detail).toContain('ENOTFOUND');
    expect(byId.get('node-pending')?.status).toBe('problem');
    expect(byId.get('node-pending')?.fix).toContain('18085');
    expect(byId.get('play-agent-port')?.status).toBe('problem');
    expect(byId.get('play-agent-port')?.detail).toContain('node-one and node-two');
    // A manual address with that domain does not change the played URLs of the play-agent node.
    expect(byId.get('external-address')).toMatchObject({ status: 'problem' });
  });

  it('leaves disabled records out', () => {
    expect(status([node({ status: 'PENDING', disabled: true })])).toMatchObject({ 'node-pending': 'ok' });
  });
});
