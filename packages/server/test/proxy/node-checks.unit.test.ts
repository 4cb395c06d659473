import type { NodeView } from '@svc/contracts';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { externalAddressChecks, playAgentPortChecks, unrestricted } from '../../src/doctor/address-checks.js';
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
const status = (nodes: NodeView[]) =>
  Object.fromEntries(nodeChecks(nodes).map((result) => [result.id, result.status]));
const manualAddress = {
  protocol: 'https' as const,
  host: 'play.example.com',
  port: null,
  url: 'https://play.example.com',
};
const manual = node({
  nodeId: 'node-manual',
  serviceType: 'manual-play-agent-endpoint',
  status: 'offline',
  expectedHost: null,
  expectedPort: null,
  listenPort: null,
  externalAddress: manualAddress,
  probe: { state: 'offline', checkedAt: '2026-01-01T00:00:00.000Z', detail: 'not reachable' },
});

describe('the doctor checks read from node records', () => {
  it('passes a healthy deployment', () => {
    expect(status([node({})])).toEqual({ 'manual-address-reachable': 'ok', 'node-pending': 'ok' });
  });

  it('names an offline manual address and a PENDING node', () => {
    const results = nodeChecks([
      manual,
      node({
        nodeId: 'node-new',
        serviceType: 'svc-control-storage',
        status: 'PENDING',
        expectedHost: '10.0.0.9',
      }),
    ]);
    const byId = new Map(results.map((result) => [result.id, result]));
    expect(byId.get('manual-address-reachable')?.status).toBe('problem');
    expect(byId.get('manual-address-reachable')?.detail).toContain('not reachable');
    expect(byId.get('node-pending')?.status).toBe('problem');
    expect(byId.get('node-pending')?.detail).toContain('node-new');
    expect(byId.get('node-pending')?.fix).toContain('18085');
  });

  it('leaves disabled records out', () => {
    expect(status([node({ status: 'PENDING', disabled: true })])).toMatchObject({ 'node-pending': 'ok' });
  });
});

describe('the doctor checks of play-agent addresses that need no probe', () => {
  const agent = new Agent();
  const reach = unrestricted(agent);
  afterAll(() => agent.close());

  it('names a play-agent whose played URLs carry a private address or the direct port behind a proxy', async () => {
    const results = await externalAddressChecks(reach, [
      node({ nodeId: 'node-private', expectedHost: '10.0.0.5' }),
      node({ nodeId: 'node-public', expectedHost: '8.8.8.8' }),
      node({ nodeId: 'node-local-play-agent', scope: 'EMBEDDED', expectedHost: null }),
      manual,
    ]);
    const bySubject = new Map(results.map((result) => [result.subject, result]));
    expect(bySubject.get('node-private')).toMatchObject({ status: 'problem' });
    expect(bySubject.get('node-private')?.detail).toContain('internal address 10.0.0.5:19090');
    expect(bySubject.get('node-public')).toMatchObject({ status: 'ok' });
    expect(bySubject.get('node-local-play-agent')).toMatchObject({ status: 'problem' });
    expect(bySubject.get('node-local-play-agent')?.fix).toContain('external address');
  });

  it('names two play-agent records on one host and port', async () => {
    const results = await playAgentPortChecks(reach, [
      node({ nodeId: 'node-one' }),
      node({ nodeId: 'node-two', expectedHost: '10.0.0.5' }),
    ]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ id: 'play-agent-port', status: 'problem' });
    expect(results[0]?.detail).toContain('node-one and node-two');
    expect(
      (
        await playAgentPortChecks(reach, [
          node({ nodeId: 'node-one' }),
          node({ nodeId: 'node-two', listenPort: 19091 }),
        ])
      )[0],
    ).toMatchObject({ status: 'ok' });
  });
});
