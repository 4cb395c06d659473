import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configComponentFactory, type ConfigParts } from '../../../src/services/config/config.component.js';
import { loadRole } from '../../../src/runtime/roles.js';
import { startCdnServers, type CdnServers } from '../../support/drive-servers/cdn-servers.js';
import { startDohServer, type DohServer } from '../../support/drive-servers/doh-server.js';
import { createTestCa, type TestCa } from '../../support/drive-servers/test-ca.js';
import { call, type Answer, type Json } from '../../support/playback-install.js';
import { startTestInstall, waitFor, type TestInstall } from '../../support/runtime.js';

// The console's DRIVE_B CDN routes through the gateway and the config service to the built-in play-agent:
// status, probe, measure one address, manual addresses, the switch in the cache configuration, validation
// errors naming their field, and the refusals of nodes that are not play-agents or are down.

const HOSTNAME = 'cdn.console.test';
const DOWN = 'node-pa-cdn-down';
let install: TestInstall;
let parts: ConfigParts | undefined;
let entrance: string;
let admin: (method: string, route: string, body?: unknown) => Promise<Answer>;
let builtIn: string;
let ca: TestCa;
let cdn: CdnServers;
let doh: DohServer;

const route = (nodeId: string, action: string) => `/api/config/nodes/${nodeId}/proxy/cdn/${action}`;

beforeAll(async () => {
  ca = createTestCa([HOSTNAME]);
  cdn = await startCdnServers({
    hostname: HOSTNAME,
    ca,
    tree: { '/a.bin': randomBytes(1024) },
    tokens: new Set(['t']),
    profiles: {
      '127.0.0.2': { latencyMs: 600, bytesPerSecond: 1024 * 1024 },
      '127.0.0.3': { latencyMs: 1, bytesPerSecond: 1024 * 1024 },
      '127.0.0.4': { latencyMs: 10, bytesPerSecond: 1024 * 1024 },
    },
  });
  doh = await startDohServer(ca, { [HOSTNAME]: ['127.0.0.2', '127.0.0.3'] });
  const control = (await loadRole('standalone-control')).slice(1);
  install = await startTestInstall(
    [
      configComponentFactory({ expose: (exposed) => (parts = exposed) }),
      ...control,
      ...(await loadRole('play-agent')),
    ],
    {
      SVC_DB_MODE: 'bundled',
      PLAY_AGENT_CDN_DOH_URLS: doh.url,
      PLAY_AGENT_CDN_CA_FILE: ca.caFile,
      PLAY_AGENT_CDN_ALLOW_PRIVATE_IPS: 'true',
    },
  );
  entrance = install.url('frontend');
  builtIn = install.context.settings.embeddedPlayAgentNodeId;
  await waitFor(
    async () => ((await call(entrance, 'GET', '/api/auth/setup/status')).status === 200 ? true : undefined),
    60_000,
  );
  expect(
    (
      await call(entrance, 'POST', '/api/auth/setup/admin', {
        body: { username: 'root', password: 'root-password-1' },
      })
    ).status,
  ).toBe(201);
  const login = await call(entrance, 'POST', '/api/auth/login', {
    body: { username: 'root', password: 'root-password-1', client: 'console' },
  });
  const token = String(login.body.adminToken);
  admin = (method, path, body) => call(entrance, method, path, { headers: { 'x-admin-token': token }, body });
  await waitFor(
    async () => ((await admin('GET', route(builtIn, 'status'))).status === 200 ? true : undefined),
    60_000,
  );
  await parts!.nodes.ensure({ nodeId: DOWN, serviceType: 'svc-play-agent', name: 'Down', scope: 'EXTERNAL' });
}, 180_000);

afterAll(async () => {
  await install?.stop();
  await Promise.allSettled([cdn?.stop(), doh?.stop()]);
  ca?.remove();
});

describe('CDN preference of a play-agent node (console routes)', () => {
  it('answers the status of a node that has not streamed from a CDN yet', async () => {
    const status = await admin('GET', route(builtIn, 'status'));
    expect(status.status, status.text).toBe(200);
    expect(status.body).toMatchObject({ nodeId: builtIn, enabled: true, intervalSeconds: 60, hosts: [] });
    expect(status.body.resolvers).toEqual([doh.url]);
    // No host known: measuring without naming one is refused.
    const unnamed = await admin('POST', route(builtIn, 'measure-ip'), { ip: '127.0.0.3' });
    expect(unnamed.status).toBe(404);
    expect(unnamed.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('probes a named host over DoH, measures one address, and honours manual addresses', async () => {
    const probed = await admin('POST', route(builtIn, 'probe'), { host: cdn.host });
    expect(probed.status, probed.text).toBe(200);
    const host = (probed.body.hosts as Json[])[0]!;
    expect(host).toMatchObject({ host: cdn.host, primaryIp: '127.0.0.3', sampleKnown: false });
    expect((host.preferredPool as Json[]).map((m) => m.ip)).toEqual(['127.0.0.3', '127.0.0.2']);

    const measured = await admin('POST', route(builtIn, 'measure-ip'), { ip: '127.0.0.4' });
    expect(measured.status, measured.text).toBe(200);
    expect(measured.body).toMatchObject({ ip: '127.0.0.4', ok: true });

    const manual = await admin('POST', route(builtIn, 'manual'), {
      host: cdn.host,
      preferredIps: ['127.0.0.2'],
      candidateIps: ['127.0.0.4'],
    });
    expect(manual.status, manual.text).toBe(200);
    expect(manual.body).toMatchObject({
      primaryIp: '127.0.0.2',
      manualPreferredIps: ['127.0.0.2'],
      manualCandidateIps: ['127.0.0.4'],
    });
    expect((manual.body.preferredPool as Json[]).map((m) => m.ip)).toContain('127.0.0.4');
    const status = await admin('GET', route(builtIn, 'status'));
    expect((status.body.hosts as Json[])[0]).toMatchObject({ primaryIp: '127.0.0.2' });
  }, 120_000);

  it('refuses bad input naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['measure-ip', { ip: 'not-an-ip' }, 'ip'],
      ['measure-ip', { ip: '127.0.0.3', host: 'bad host/x' }, 'host'],
      ['manual', { host: cdn.host, preferredIps: ['1.2.3.4', '1.2.3.4'], candidateIps: [] }, 'preferredIps'],
      ['manual', { host: cdn.host, preferredIps: [], candidateIps: ['300.1.1.1'] }, 'candidateIps'],
      ['manual', { preferredIps: [], candidateIps: [] }, 'host'],
      ['probe', { host: 'x', extra: true }, 'extra'],
    ];
    for (const [action, body, field] of cases) {
      const answer = await admin('POST', route(builtIn, action), body);
      expect(answer.status, `${action} ${JSON.stringify(body)}: ${answer.text}`).toBe(400);
      expect(answer.body).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
      expect(JSON.stringify(answer.body.error)).toContain(field);
    }
  });

  it('follows the switch in the cache configuration', async () => {
    const off = await admin('PATCH', `/api/config/nodes/${builtIn}/cache-config`, {
      cdn: { enabled: false },
    });
    expect(off.status, off.text).toBe(200);
    expect(off.body.cdn).toEqual({ enabled: false });
    await waitFor(async () => {
      const status = await admin('GET', route(builtIn, 'status'));
      return status.body.enabled === false ? true : undefined;
    }, 30_000);
    const on = await admin('PATCH', `/api/config/nodes/${builtIn}/cache-config`, { cdn: { enabled: true } });
    expect(on.status).toBe(200);
    await waitFor(
      async () => ((await admin('GET', route(builtIn, 'status'))).body.enabled ? true : undefined),
      30_000,
    );
  });

  it('refuses nodes that are not play-agents, nodes that are down, and callers without the right', async () => {
    const storage = install.context.settings.embeddedStorageNodeId;
    const notPlayAgent = await admin('GET', route(storage, 'status'));
    expect(notPlayAgent.status).toBe(409);
    expect(notPlayAgent.body).toMatchObject({ error: { code: 'NODE_NOT_PLAY_AGENT' } });
    const down = await admin('POST', route(DOWN, 'probe'), {});
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ error: { code: 'NODE_UNREACHABLE' } });
    expect((await call(entrance, 'GET', route(builtIn, 'status'))).status).toBe(401);
  });
});
