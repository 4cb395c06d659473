// The cache routes of a play-agent node through the console entrance: configuration kept by the config
// service and pushed to a real in-process play-agent, validation naming fields, refusals for other node
// kinds, a node that is down (saved, taken at its next pull), the forwarded entry routes and the sync.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_NODE_CACHE_CONFIG } from '@svc/contracts';
import { createLogger } from '../../../src/platform/logger.js';
import { ServiceClient } from '../../../src/platform/http/service-client.js';
import { configComponentFactory, type ConfigParts } from '../../../src/services/config/config.component.js';
import { CacheConfigPuller } from '../../../src/services/play-agent/cache-runtime/cache-config-puller.js';
import { NodeCacheRuntime } from '../../../src/services/play-agent/cache-runtime/node-cache-runtime.js';
import { ConfigClient } from '../../../src/services/play-agent/upstream/config-client.js';
import { loadRole } from '../../../src/runtime/roles.js';
import { call, type Answer, type Json } from '../../support/playback-install.js';
import { startTestInstall, waitFor, type TestInstall } from '../../support/runtime.js';

const MiB = 1024 * 1024;
const DOWN = 'node-pa-down';
let install: TestInstall;
let parts: ConfigParts | undefined;
let entrance: string;
let admin: (method: string, route: string, body?: unknown) => Promise<Answer>;
let builtIn: string;

beforeAll(async () => {
  const control = (await loadRole('standalone-control')).slice(1);
  install = await startTestInstall(
    [
      configComponentFactory({ expose: (exposed) => (parts = exposed) }),
      ...control,
      ...(await loadRole('play-agent')),
    ],
    { SVC_DB_MODE: 'bundled' },
  );
  entrance = install.url('frontend');
  builtIn = install.context.settings.embeddedPlayAgentNodeId;
  await waitFor(
    async () => ((await call(entrance, 'GET', '/api/auth/setup/status')).status === 200 ? true : undefined),
    60_000,
  );
  const setup = await call(entrance, 'POST', '/api/auth/setup/admin', {
    body: { username: 'root', password: 'root-password-1' },
  });
  expect(setup.status).toBe(201);
  const login = await call(entrance, 'POST', '/api/auth/login', {
    body: { username: 'root', password: 'root-password-1', client: 'console' },
  });
  const token = String(login.body.adminToken);
  admin = (method, route, body) =>
    call(entrance, method, route, { headers: { 'x-admin-token': token }, body });
  // The built-in play-agent has registered its address (the push and the forwarded routes need it).
  await waitFor(
    async () =>
      (await admin('GET', `/api/config/nodes/${builtIn}/proxy/cache/disk-usage`)).status === 200
        ? true
        : undefined,
    60_000,
  );
  // A play-agent record whose node never came up: no registered address.
  await parts!.nodes.ensure({ nodeId: DOWN, serviceType: 'svc-play-agent', name: 'Down', scope: 'EXTERNAL' });
}, 180_000);

afterAll(async () => {
  await install?.stop();
});

const cacheConfig = (nodeId: string) => `/api/config/nodes/${nodeId}/cache-config`;
const proxy = (nodeId: string, route: string) => `/api/config/nodes/${nodeId}/proxy/cache/${route}`;

describe('cache configuration of a play-agent node', () => {
  it('starts at the defaults and refuses invalid changes naming the field', async () => {
    const initial = await admin('GET', cacheConfig(builtIn));
    expect(initial.status).toBe(200);
    expect(initial.body).toEqual(DEFAULT_NODE_CACHE_CONFIG);

    const tooSmall = await admin('PATCH', cacheConfig(builtIn), { vfs: { capacityBytes: 1 } });
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.body).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    expect(JSON.stringify((tooSmall.body.error as Json).details)).toContain('capacityBytes');

    // A rule across fields (the head must fit the per-file cap) is named as a dot path too.
    const crossed = await admin('PATCH', cacheConfig(builtIn), { vfs: { minHeadBytes: 60 * MiB } });
    expect(crossed.status).toBe(400);
    const fields = ((crossed.body.error as Json).details as { field: string }[]).map((issue) => issue.field);
    expect(fields.length).toBeGreaterThan(0);
    for (const field of fields) expect(field).toMatch(/^vfs\./);
    expect((await admin('GET', cacheConfig(builtIn))).body).toEqual(DEFAULT_NODE_CACHE_CONFIG);
  });

  it('applies a change on the running node at once', async () => {
    const changed = await admin('PATCH', cacheConfig(builtIn), {
      vfs: { enabled: true, mode: 'READ_AHEAD', capacityBytes: 512 * MiB },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.vfs).toMatchObject({ enabled: true, mode: 'READ_AHEAD', capacityBytes: 512 * MiB });
    expect((changed.body.image as Json).enabled).toBe(DEFAULT_NODE_CACHE_CONFIG.image.enabled);

    const usage = await admin('GET', proxy(builtIn, 'disk-usage'));
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({
      enabled: true,
      directory: path.join(install.dataDir, 'play-agent', 'vfs-cache'),
      capacityBytes: 512 * MiB,
      entries: 0,
    });
    expect(usage.body.fileSystem).not.toBeNull();

    const items = await admin(
      'GET',
      `${proxy(builtIn, 'vfs-items')}?page=1&pageSize=10&groupByEpisodes=true&sort=cachedBytes&order=asc`,
    );
    expect(items.status).toBe(200);
    expect(items.body).toEqual({ total: 0, page: 1, pageSize: 10, rows: [] });
    const missing = await admin('POST', proxy(builtIn, 'vfs-delete'), { entryId: '0'.repeat(32) });
    expect(missing.status).toBe(404);
    const all = await admin('POST', proxy(builtIn, 'vfs-delete'), { all: true });
    expect(all.body).toEqual({ removed: 0, inUse: 0 });
    const flushed = await admin('POST', proxy(builtIn, 'flush'));
    expect(flushed.status).toBe(200);
    expect(flushed.body).toMatchObject({ vfs: { removed: 0, inUse: 0 } });
    // The flush leaves the configuration alone.
    expect(((await admin('GET', cacheConfig(builtIn))).body.vfs as Json).enabled).toBe(true);
  });

  it('refuses nodes that are not play-agents and unknown ids', async () => {
    const storage = install.context.settings.embeddedStorageNodeId;
    const refused = await admin('GET', cacheConfig(storage));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'NODE_NOT_PLAY_AGENT' } });
    expect((await admin('GET', proxy(storage, 'disk-usage'))).status).toBe(409);
    expect((await admin('GET', cacheConfig('node-nobody-here'))).status).toBe(404);
  });

  it('needs the cache permission', async () => {
    expect((await call(entrance, 'GET', cacheConfig(builtIn))).status).toBe(401);
    const tokenOf = async (username: string, permissions: string[]) => {
      const password = `${username}-pass-1`;
      const created = await admin('POST', '/api/auth/admin/users', { username, password, permissions });
      expect(created.status, created.text).toBe(201);
      const login = await call(entrance, 'POST', '/api/auth/login', {
        body: { username, password, client: 'console' },
      });
      return { 'x-admin-token': String(login.body.adminToken) };
    };
    const nodesOnly = await tokenOf('nodes.admin', ['node']);
    const cacheOnly = await tokenOf('cache.admin', ['cache']);
    const routes: [string, string, unknown?][] = [
      ['GET', cacheConfig(builtIn)],
      ['PATCH', cacheConfig(builtIn), { image: { retentionHours: 24 } }],
      ['POST', `${cacheConfig(builtIn)}/sync`, { targetNodeIds: [DOWN] }],
      ['GET', proxy(builtIn, 'disk-usage')],
      ['POST', proxy(builtIn, 'flush')],
      ['GET', proxy(builtIn, 'startup-probe/status')],
      ['POST', proxy(builtIn, 'startup-probe/recheck')],
    ];
    for (const [method, route, body] of routes) {
      const denied = await call(entrance, method, route, { headers: nodesOnly, body });
      expect(denied.status, `${method} ${route}`).toBe(403);
    }
    const allowed = await call(entrance, 'GET', cacheConfig(builtIn), { headers: cacheOnly });
    expect(allowed.status).toBe(200);
    const probe = await call(entrance, 'GET', proxy(builtIn, 'startup-probe/status'), { headers: cacheOnly });
    expect(probe.status).toBe(200);
  });

  it('saves a change for a node that is down; the node takes it at its next pull', async () => {
    const saved = await admin('PATCH', cacheConfig(DOWN), { vfs: { enabled: true, preset: 'STABLE' } });
    expect(saved.status).toBe(200);
    const unreachable = await admin('GET', proxy(DOWN, 'disk-usage'));
    expect(unreachable.status).toBe(503);
    expect(unreachable.body).toMatchObject({ error: { code: 'NODE_UNREACHABLE' } });

    // The node side as the play-agent runs it: its pull from the config service reaches the runtime.
    const runtime = new NodeCacheRuntime({
      defaultDirectory: path.join(install.dataDir, 'down-node', 'vfs_cache'),
      baseDirectory: path.join(install.dataDir, 'down-node'),
      logger: createLogger({ level: 'silent', component: 'test' }),
    });
    const config = new ConfigClient(
      new ServiceClient({
        service: 'svc-config',
        registry: install.context.registry,
        serviceToken: install.context.serviceToken,
        fixedBaseUrl: install.url('config'),
      }),
    );
    const puller = new CacheConfigPuller({
      fetch: () => config.cacheConfig(DOWN),
      apply: (next) => runtime.apply(next),
      logger: createLogger({ level: 'silent', component: 'test' }),
    });
    await puller.pull();
    expect(runtime.settings.vfs).toMatchObject({
      enabled: true,
      preset: 'STABLE',
      perFileHardCapBytes: 64 * MiB,
    });
    expect(runtime.cache).not.toBeNull();
    await runtime.stop();
  });

  it('copies a configuration to other play-agent nodes, keeping their directories, and reports each', async () => {
    await admin('PATCH', cacheConfig(DOWN), { vfs: { directory: '/srv/own-cache' } });
    const synced = await admin('POST', `${cacheConfig(builtIn)}/sync`, {
      targetNodeIds: [DOWN, install.context.settings.embeddedStorageNodeId],
    });
    expect(synced.status).toBe(200);
    const results = synced.body.results as Json[];
    expect(results[0]).toMatchObject({ nodeId: DOWN, saved: true, applied: false });
    expect(results[1]).toMatchObject({ saved: false, applied: false });
    const copied = (await admin('GET', cacheConfig(DOWN))).body.vfs as Json;
    expect(copied).toMatchObject({
      mode: 'READ_AHEAD',
      capacityBytes: 512 * MiB,
      directory: '/srv/own-cache',
    });
  });

  it('syncs to two play-agent nodes, one running and one down, with a result per node', async () => {
    const secondDown = 'node-pa-down-2';
    await parts!.nodes.ensure({
      nodeId: secondDown,
      serviceType: 'svc-play-agent',
      name: 'Down 2',
      scope: 'EXTERNAL',
    });
    // The source is a node that is down itself: its stored configuration is what is copied.
    const source = await admin('PATCH', cacheConfig(DOWN), {
      vfs: { capacityBytes: 768 * MiB },
      image: { capacityBytes: 64 * MiB, retentionHours: 48 },
      metadataProbe: { maxConcurrency: 2, trafficCapMb: 16, startDelaySeconds: 2 },
    });
    expect(source.status).toBe(200);

    const synced = await admin('POST', `${cacheConfig(DOWN)}/sync`, { targetNodeIds: [builtIn, secondDown] });
    expect(synced.status).toBe(200);
    const results = synced.body.results as Json[];
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ nodeId: builtIn, saved: true, applied: true });
    expect(results[0]!.error).toBeUndefined();
    expect(results[1]).toMatchObject({ nodeId: secondDown, saved: true, applied: false });
    expect(String(results[1]!.error)).toMatch(/\S/);

    for (const target of [builtIn, secondDown]) {
      const stored = (await admin('GET', cacheConfig(target))).body;
      expect(stored.image).toMatchObject({ capacityBytes: 64 * MiB, retentionHours: 48, directory: null });
      expect(stored.metadataProbe).toMatchObject({
        maxConcurrency: 2,
        trafficCapMb: 16,
        startDelaySeconds: 2,
      });
    }
    // The running node took it at once: its own disk usage reports the copied capacity, in its own directory.
    const usage = await admin('GET', proxy(builtIn, 'disk-usage'));
    expect(usage.body).toMatchObject({
      capacityBytes: 768 * MiB,
      directory: path.join(install.dataDir, 'play-agent', 'vfs-cache'),
    });
  });
});
