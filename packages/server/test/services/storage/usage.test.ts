import { execFileSync } from 'node:child_process';
import { rmSync, statfsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Identity, Mount, MountUsage, StorageUsageResponse } from '@svc/contracts';
import type { MountsService, OpenMount } from '../../../src/services/storage/mounts.service.js';
import type { StorageProvider } from '../../../src/services/storage/providers/provider.js';
import { StorageUsageService } from '../../../src/services/storage/usage/usage.service.js';
import { installBackends } from '../../support/install-backends.js';
import { ADMIN, startStorage, type StorageHarness } from './storage-harness.js';

/** What the fake WebDAV server reports for the quota of its root. */
type Quota = { used: number; available: number } | 'none';

/**
 * A minimal WebDAV server: every PROPFIND answers the root as a collection, with the RFC 4331 quota in a
 * 200 propstat, or (like rclone and many servers) both quota properties in a 404 propstat. It records the
 * PROPFIND bodies it received.
 */
async function startFakeDav(quota: Quota): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const readBody = async (request: IncomingMessage) => {
    let text = '';
    for await (const chunk of request) text += (chunk as Buffer).toString('utf8');
    return text;
  };
  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'PROPFIND') {
        response.writeHead(405).end();
        return;
      }
      bodies.push(await readBody(request));
      const quotaProps =
        quota === 'none'
          ? `<D:propstat><D:prop><D:quota-available-bytes/><D:quota-used-bytes/></D:prop>
             <D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>`
          : `<D:propstat><D:prop><D:quota-available-bytes>${quota.available}</D:quota-available-bytes>
             <D:quota-used-bytes>${quota.used}</D:quota-used-bytes></D:prop>
             <D:status>HTTP/1.1 200 OK</D:status></D:propstat>`;
      response.writeHead(207, { 'content-type': 'application/xml; charset=utf-8' });
      response.end(`<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:"><D:response>
        <D:href>/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop>
        <D:status>HTTP/1.1 200 OK</D:status></D:propstat>${quotaProps}</D:response></D:multistatus>`);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, bodies, server };
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** A delegated console account holding only the given permissions. */
const delegate = (permissions: Identity['permissions']): Identity => ({
  ...ADMIN,
  userId: '00000000-0000-4000-8000-0000000000d1',
  username: 'delegate',
  role: 'user',
  permissions,
});

describe.each(installBackends())('storage usage for the console dashboard on $label', (backend) => {
  let storage: StorageHarness;
  let disk: { mount: Mount; root: string };
  let gone: { mount: Mount; root: string };
  let withQuota: Awaited<ReturnType<typeof startFakeDav>>;
  let withoutQuota: Awaited<ReturnType<typeof startFakeDav>>;
  let down: Awaited<ReturnType<typeof startFakeDav>>;
  const mountIds: Record<string, string> = {};

  const usage = async (identity: Identity = ADMIN) => {
    const answer = await storage.api('GET', '/api/storage/dashboard/usage', { identity });
    expect(answer.status, answer.body.toString()).toBe(200);
    return answer.json<StorageUsageResponse>();
  };
  const byName = (answer: StorageUsageResponse, name: string): MountUsage => {
    const found = answer.mounts.find((mount) => mount.name === name);
    if (!found) throw new Error(`no mount ${name} in ${JSON.stringify(answer)}`);
    return found;
  };

  beforeAll(async () => {
    storage = await startStorage(backend.env);
    disk = await storage.localMount('disk');
    gone = await storage.localMount('gone');
    withQuota = await startFakeDav({ used: 123_456_789, available: 987_654_321_000 });
    withoutQuota = await startFakeDav('none');
    down = await startFakeDav({ used: 1, available: 1 });
    for (const [name, server] of [
      ['nas-quota', withQuota],
      ['nas-plain', withoutQuota],
      ['nas-down', down],
    ] as const) {
      const created = await storage.api('POST', '/api/storage/mounts', {
        body: { name, provider: 'webdav', config: { url: server.url, allowPrivateNetwork: true } },
      });
      expect(created.status, created.body.toString()).toBe(201);
      mountIds[name] = created.json<Mount>().id;
    }
    // The mount records stay; their backends go away.
    rmSync(gone.root, { recursive: true, force: true });
    await closeServer(down.server);
  });

  afterAll(async () => {
    await closeServer(withQuota.server);
    await closeServer(withoutQuota.server);
    await storage?.stop();
    await backend.cleanup();
  });

  it('lists every mount by name with its provider', async () => {
    const answer = await usage();
    expect(answer.mounts.map((mount) => [mount.name, mount.provider, mount.enabled])).toEqual([
      ['disk', 'local', true],
      ['gone', 'local', true],
      ['nas-down', 'webdav', true],
      ['nas-plain', 'webdav', true],
      ['nas-quota', 'webdav', true],
    ]);
    expect(byName(answer, 'disk').mountId).toBe(disk.mount.id);
    expect(byName(answer, 'nas-quota').mountId).toBe(mountIds['nas-quota']);
  });

  it('reports the file system of a local mount as statfs and df see it', async () => {
    const mount = byName(await usage(), 'disk');
    const fs = statfsSync(disk.root);
    const total = fs.blocks * fs.bsize;
    expect(mount.status).toBe('ok');
    expect(mount.totalBytes).toBe(total);
    // df computes the same size from statvfs.
    const df = execFileSync('df', ['-B1', '--output=size', disk.root], { encoding: 'utf8' });
    expect(mount.totalBytes).toBe(Number(df.trim().split('\n').pop()));
    // Used and free move with whatever else writes to the disk; they stay consistent with each other.
    expect(mount.usedBytes).toBeGreaterThan(0);
    expect(mount.freeBytes).toBeGreaterThan(0);
    expect(mount.usedBytes! + mount.freeBytes!).toBeLessThanOrEqual(total);
    expect(Math.abs(mount.freeBytes! - fs.bavail * fs.bsize)).toBeLessThan(1024 ** 3);
  });

  it('reports a local mount whose root is gone as unavailable, without byte counts', async () => {
    expect(byName(await usage(), 'gone')).toEqual({
      mountId: gone.mount.id,
      name: 'gone',
      provider: 'local',
      enabled: true,
      status: 'unavailable',
      totalBytes: null,
      usedBytes: null,
      freeBytes: null,
    });
  });

  it("reports a WebDAV server's RFC 4331 quota, and nulls when it has none", async () => {
    withQuota.bodies.length = 0;
    const answer = await usage();
    expect(byName(answer, 'nas-quota')).toMatchObject({
      status: 'ok',
      usedBytes: 123_456_789,
      freeBytes: 987_654_321_000,
      totalBytes: 123_456_789 + 987_654_321_000,
    });
    expect(withQuota.bodies.some((body) => body.includes('quota-available-bytes'))).toBe(true);
    expect(byName(answer, 'nas-plain')).toMatchObject({
      status: 'ok',
      totalBytes: null,
      usedBytes: null,
      freeBytes: null,
    });
  });

  it('reports a WebDAV server that does not answer as unavailable', async () => {
    expect(byName(await usage(), 'nas-down')).toMatchObject({
      provider: 'webdav',
      status: 'unavailable',
      totalBytes: null,
      usedBytes: null,
      freeBytes: null,
    });
  });

  it('needs the dashboard permission (storage alone is not enough) and answers HEAD', async () => {
    expect((await usage(delegate(['dashboard']))).mounts).toHaveLength(5);
    const storageOnly = await storage.api('GET', '/api/storage/dashboard/usage', {
      identity: delegate(['storage']),
    });
    expect(storageOnly.status).toBe(403);
    expect(storageOnly.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    const anonymous = await storage.api('GET', '/api/storage/dashboard/usage', { identity: null });
    expect(anonymous.status).toBe(401);
    const head = await storage.api('HEAD', '/api/storage/dashboard/usage');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['cache-control']).toBe('no-store');
  });
});

describe('storage usage service', () => {
  it('counts a backend that does not answer in time as unavailable, and still answers the others', async () => {
    const provider = (usage: StorageProvider['usage']) => ({ usage }) as unknown as StorageProvider;
    const mounts: OpenMount[] = [
      // statfs on a hung network file system ignores the signal: the service must stop waiting anyway.
      { id: 'm1', name: 'hung', kind: 'local', provider: provider(() => new Promise(() => undefined)) },
      {
        id: 'm2',
        name: 'fine',
        kind: 'local',
        provider: provider(async () => ({ totalBytes: 10, usedBytes: 4, freeBytes: 6 })),
      },
    ];
    const service = new StorageUsageService(
      { openAll: async () => mounts } as unknown as MountsService,
      pino({ level: 'silent' }),
      100,
    );
    const started = Date.now();
    const answer = await service.usage();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(answer.mounts).toEqual([
      {
        mountId: 'm1',
        name: 'hung',
        provider: 'local',
        enabled: true,
        status: 'unavailable',
        totalBytes: null,
        usedBytes: null,
        freeBytes: null,
      },
      {
        mountId: 'm2',
        name: 'fine',
        provider: 'local',
        enabled: true,
        status: 'ok',
        totalBytes: 10,
        usedBytes: 4,
        freeBytes: 6,
      },
    ]);
  });
});
