import { PROXY_PROBE_BYTES, PROXY_PROBE_ROUTE_HEADER } from '@svc/contracts';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctorChecks, type DoctorOptions } from '../../src/cli/doctor.js';
import type { CheckResult } from '../../src/doctor/check-result.js';
import { probe } from '../../src/doctor/http-probe.js';
import { nginxSites, type ProxySitesOptions } from '../../src/proxy-sites/index.js';
import type { RealNginx } from './real-nginx.js';
import type { ProxyInstall } from './proxy-install.js';
import {
  CONSOLE,
  HOLD_MS,
  PLAYBACK,
  startProxiedInstall,
  TIMEOUT_SECONDS,
  type ProxiedInstall,
} from './proxied-install.js';

const MIB = 1024 * 1024;

/**
 * The generated nginx sites in front of a real control plane and play-agent, with self-signed
 * certificates on loopback and two server names; then each broken setup of the troubleshooting list,
 * made from the generated text, and what `svc doctor` says of it.
 */
describe('generated nginx sites with a real nginx', () => {
  let proxied: ProxiedInstall;
  let env: ProxyInstall;
  let nginx: RealNginx;
  let endpoint: { nodeId: string; endpointToken: string };
  let doctor: DoctorOptions;
  let client: Dispatcher;

  const generated = () => proxied.generated();
  const byId = (results: CheckResult[]) => new Map(results.map((result) => [result.id, result]));
  const url = (name: string, route: string) => proxied.url(name, route);
  const options = (): ProxySitesOptions => proxied.options;

  beforeAll(async () => {
    proxied = await startProxiedInstall();
    ({ env, nginx, endpoint, doctor } = proxied);
    client = proxied.client();
  }, 400_000);

  async function reload(sites: string): Promise<void> {
    await proxied.reload(sites);
    client = proxied.client();
  }

  afterAll(async () => {
    await proxied?.stop();
  });

  it('passes Range, 206 and Content-Range unchanged and never compresses playback', async () => {
    const ranged = await probe(
      client,
      url(PLAYBACK, '/svc/proxy-probe'),
      { range: 'bytes=100-4195', 'accept-encoding': 'gzip, br' },
      30_000,
    );
    expect(ranged.status).toBe(206);
    expect(ranged.headers['content-range']).toBe(`bytes 100-4195/${PROXY_PROBE_BYTES}`);
    expect(ranged.headers['accept-ranges']).toBe('bytes');
    expect(ranged.headers['content-encoding']).toBeUndefined();
    expect(ranged.body.length).toBe(4096);
    const whole = await probe(
      client,
      url(PLAYBACK, '/svc/proxy-probe'),
      { 'accept-encoding': 'gzip' },
      30_000,
    );
    expect(whole.headers['content-encoding']).toBeUndefined();
    expect(whole.body.length).toBe(PROXY_PROBE_BYTES);
  });

  it('delivers console events as they are sent and does not cut a long pause', async () => {
    const stream = await probe(
      client,
      url(CONSOLE, `/api/config/diagnostics/stream-probe?holdMs=${HOLD_MS}`),
      { 'x-admin-token': env.adminToken },
      30_000,
    );
    expect(stream.headers['content-type']).toContain('text/event-stream');
    expect(stream.firstByteMs).toBeLessThan(HOLD_MS / 2);
    expect(stream.totalMs).toBeGreaterThanOrEqual(HOLD_MS);
    expect(stream.cut).toBeNull();
    expect(stream.body.toString()).toContain('data: last');
    expect(stream.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(stream.headers['x-content-type-options']).toBe('nosniff');
  });

  it('lets a 20 MiB console upload through and answers a larger one 413 itself', async () => {
    const upload = (bytes: number) =>
      probe(
        client,
        url(CONSOLE, '/api/config/uploads/image'),
        { 'x-admin-token': env.adminToken, 'content-type': 'image/png', 'content-length': String(bytes) },
        60_000,
        Buffer.alloc(bytes, 1),
      );
    // The application answers the 20 MiB body (its JSON error: a logo may be 2 MB), nginx did not refuse it.
    const within = await upload(20 * MIB);
    expect(within.headers['content-type']).toContain('application/json');
    expect(JSON.parse(within.body.toString())).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    const over = await upload(20 * MIB + 1);
    expect(over.status).toBe(413);
    expect(over.headers['content-type']).toContain('text/html');
    expect(over.body.toString()).toContain('nginx');
  }, 120_000);

  it('injects the endpoint token, which attributes playback to the manual address until regenerated', async () => {
    const routeOf = async () =>
      (
        await probe(
          client,
          url(PLAYBACK, '/svc/proxy-probe'),
          { 'x-svc-endpoint-token': 'svc_ept_forged' },
          30_000,
        )
      ).headers[PROXY_PROBE_ROUTE_HEADER];
    // The proxy's own header replaces whatever a client sends.
    expect(await routeOf()).toBe(endpoint.nodeId);

    const fresh = await env.regenerateEndpoint(endpoint.nodeId);
    expect(await routeOf()).toBe('unknown');
    expect(byId(await runDoctorChecks(doctor)).get('endpoint-token')).toMatchObject({ status: 'problem' });
    endpoint = { ...endpoint, endpointToken: fresh };
    proxied.options = { ...options(), playback: { ...options().playback, endpointToken: fresh } };
    await reload(generated());
    expect(await routeOf()).toBe(endpoint.nodeId);
  }, 60_000);

  it('hands users the external address once it is set', async () => {
    const nodeId = env.install.context.settings.playAgent.nodeId;
    const routeUrl = async () => {
      const answer = await env.admin('GET', '/api/config/me/playback-routes');
      return (answer.body.routes as { id: string; url: string | null }[]).find((route) => route.id === nodeId)
        ?.url;
    };
    expect(await routeUrl()).not.toContain(PLAYBACK);
    expect(byId(await runDoctorChecks(doctor)).get('external-address')).toMatchObject({ status: 'problem' });
    const patched = await env.admin('PATCH', `/api/config/nodes/${nodeId}`, {
      externalAddress: { protocol: 'https', host: PLAYBACK, port: nginx.httpsPort },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(await routeUrl()).toBe(`https://${PLAYBACK}:${nginx.httpsPort}`);
  }, 60_000);

  it("gives the console the manual address's sites with its real token", async () => {
    const snippet = await env.admin(
      'GET',
      `/api/config/nodes/${endpoint.nodeId}/proxy-snippet?server=nginx&consoleName=${CONSOLE}`,
    );
    expect(snippet.status, snippet.text).toBe(200);
    const text = String(snippet.body.text);
    expect(text).toContain(`server_name ${PLAYBACK};`);
    expect(text).toContain(`proxy_set_header X-SVC-Endpoint-Token "${endpoint.endpointToken}";`);
    expect(text).toContain('proxy_read_timeout 3600s;');
    const caddy = await env.admin(
      'GET',
      `/api/config/nodes/${endpoint.nodeId}/proxy-snippet?server=caddy&consoleName=${CONSOLE}`,
    );
    expect(String(caddy.body.text)).toContain(`header_up X-SVC-Endpoint-Token "${endpoint.endpointToken}"`);
    const nodeId = env.install.context.settings.playAgent.nodeId;
    expect(
      (
        await env.admin(
          'GET',
          `/api/config/nodes/${nodeId}/proxy-snippet?server=nginx&consoleName=${CONSOLE}`,
        )
      ).status,
    ).toBe(400);
  });

  it('passes every proxy check of svc doctor with the generated sites', async () => {
    const results = byId(await runDoctorChecks(doctor));
    for (const id of [
      'playback-site',
      'endpoint-token',
      'playback-range',
      'playback-compression',
      'playback-buffering',
      'playback-timeout',
      'console-site',
      'console-buffering',
      'console-timeout',
      'node-pending',
      'play-agent-port',
      'external-address',
    ])
      expect(results.get(id), id).toMatchObject({ status: 'ok' });
  }, 60_000);

  /** A broken setup: how it is made from the generated text, and the checks the doctor must fail. */
  const faults: { name: string; absent: RegExp; make: (sites: string) => string; names: string[] }[] = [
    {
      name: 'playback domain proxied to the console (18080)',
      absent: /server_name play\.test;[^}]*proxy_pass http:\/\/127\.0\.0\.1:CONSOLE_PORT;/,
      make: (sites) =>
        sites.replace(
          `proxy_pass http://${options().playback.upstream};`,
          `proxy_pass http://${options().console.upstream};`,
        ),
      names: ['playback-site'],
    },
    {
      name: 'playback domain sharing the console server name',
      absent: /server_name console\.test play\.test;/,
      make: (sites) =>
        sites
          .replace(`server_name ${PLAYBACK};`, 'server_name elsewhere.test;')
          .replace(`server_name ${CONSOLE};`, `server_name ${CONSOLE} ${PLAYBACK};`),
      names: ['playback-site'],
    },
    {
      name: 'a read timeout shorter than a long answer (the 60 s default)',
      absent: /proxy_read_timeout (60|1)s;/,
      make: (sites) => sites.replaceAll(`proxy_read_timeout ${TIMEOUT_SECONDS}s;`, 'proxy_read_timeout 1s;'),
      names: ['playback-timeout', 'console-timeout'],
    },
    {
      name: 'response buffering on the playback site',
      absent: /proxy_buffering on;/,
      make: (sites) => {
        const at = sites.lastIndexOf('proxy_buffering off;');
        return `${sites.slice(0, at)}proxy_buffering on;${sites.slice(at + 'proxy_buffering off;'.length)}`;
      },
      names: ['playback-buffering'],
    },
    {
      name: 'compression on the playback site',
      absent: /server_name play\.test;[^}]*gzip on;/,
      make: (sites) => sites.replace('gzip off;', 'gzip on; gzip_types *; gzip_min_length 0;'),
      names: ['playback-compression'],
    },
    {
      name: 'a buffered console event stream',
      absent: /proxy_ignore_headers/,
      make: (sites) =>
        sites.replace('proxy_buffering off;', 'proxy_buffering on; proxy_ignore_headers X-Accel-Buffering;'),
      names: ['console-buffering'],
    },
    {
      name: 'the endpoint token missing from the playback site',
      absent: /^(?![\s\S]*X-SVC-Endpoint-Token)/,
      make: (sites) => sites.replace(/^ *proxy_set_header X-SVC-Endpoint-Token .*\n/m, ''),
      names: ['endpoint-token'],
    },
  ];

  it.each(faults)(
    'names $name, which the generated sites do not have',
    async (fault) => {
      const sites = generated();
      expect(sites).not.toMatch(
        new RegExp(fault.absent.source.replace('CONSOLE_PORT', String(new URL(env.entrance).port))),
      );
      await reload(fault.make(sites));
      try {
        const results = byId(await runDoctorChecks(doctor));
        for (const id of fault.names) {
          expect(results.get(id), id).toMatchObject({ status: 'problem' });
          expect(results.get(id)?.fix, id).toBeTruthy();
        }
      } finally {
        await reload(sites);
      }
    },
    60_000,
  );

  /** A worker record that never sends a heartbeat, removed again after `body`. */
  async function withWorker(
    fields: {
      serviceType: 'svc-control-storage' | 'svc-play-agent';
      expectedHost: string;
      listenPort: number | null;
    },
    body: (nodeId: string) => Promise<void>,
  ): Promise<void> {
    const nodeId = `node-doctor-${fields.serviceType === 'svc-play-agent' ? 'agent' : 'storage'}`;
    await env.config.nodes.insertWorker(
      { nodeId, name: nodeId, note: '', expectedPort: null, external: null, ...fields },
      new Date(),
    );
    try {
      await body(nodeId);
    } finally {
      await env.config.database.db.deleteFrom('nodes').where('node_id', '=', nodeId).execute();
    }
  }

  it('names a manual address the application cannot reach, which the generated sites serve', async () => {
    const sites = generated();
    await env.runTask('nodes.manual-health');
    expect((await env.node(endpoint.nodeId)).status).toBe('ONLINE');
    // No site for the playback name: the catch-all refuses it, as a proxy without the site would.
    await reload(sites.replace(`server_name ${PLAYBACK};`, 'server_name gone.test;'));
    try {
      await env.runTask('nodes.manual-health');
      expect((await env.node(endpoint.nodeId)).status).toBe('offline');
      const found = byId(await runDoctorChecks(doctor)).get('manual-address-reachable');
      expect(found).toMatchObject({ status: 'problem' });
      expect(found?.detail).toContain(PLAYBACK);
      expect(found?.fix).toContain('/health');
    } finally {
      await reload(sites);
      await env.runTask('nodes.manual-health');
    }
    expect(byId(await runDoctorChecks(doctor)).get('manual-address-reachable')).toMatchObject({
      status: 'ok',
    });
  }, 120_000);

  it('names a play-agent whose played URLs point where no proxy serves them', async () => {
    const nodeId = env.install.context.settings.playAgent.nodeId;
    const external = (host: string) =>
      env.admin('PATCH', `/api/config/nodes/${nodeId}`, {
        externalAddress: { protocol: 'https', host, port: nginx.httpsPort },
      });
    expect((await external('elsewhere.test')).status).toBe(200);
    try {
      const found = (await runDoctorChecks(doctor)).filter(
        (result) => result.id === 'external-address' && result.subject === nodeId,
      );
      expect(found[0]).toMatchObject({ status: 'problem' });
      expect(found[0]?.detail).toContain('elsewhere.test');
      expect(found[0]?.fix).toContain('external address');
    } finally {
      expect((await external(PLAYBACK)).status).toBe(200);
    }
    const fixed = (await runDoctorChecks(doctor)).filter(
      (result) => result.id === 'external-address' && result.subject === nodeId,
    );
    expect(fixed[0]).toMatchObject({ status: 'ok' });
  }, 120_000);

  it('names a node stuck in PENDING; the generated sites never forward the config service port', async () => {
    expect(() =>
      nginxSites({ ...options(), playback: { ...options().playback, upstream: '127.0.0.1:18085' } }),
    ).toThrow(/18085/);
    await withWorker(
      { serviceType: 'svc-control-storage', expectedHost: '10.0.0.9', listenPort: null },
      async (nodeId) => {
        const found = byId(await runDoctorChecks(doctor)).get('node-pending');
        expect(found).toMatchObject({ status: 'problem' });
        expect(found?.detail).toContain(nodeId);
        expect(found?.fix).toContain('18085');
      },
    );
  }, 120_000);

  it('names a second play-agent kept from its port by the one already listening there', async () => {
    const taken = Number(new URL(env.playAgent).port);
    await withWorker(
      { serviceType: 'svc-play-agent', expectedHost: '127.0.0.1', listenPort: taken },
      async (nodeId) => {
        const found = (await runDoctorChecks(doctor)).filter((result) => result.id === 'play-agent-port');
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ status: 'problem', subject: nodeId });
        expect(found[0]?.detail).toContain(`127.0.0.1:${taken}`);
        expect(found[0]?.fix).toContain('19091');
      },
    );
    expect(byId(await runDoctorChecks(doctor)).get('play-agent-port')).toMatchObject({ status: 'ok' });
  }, 120_000);
});
