import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { BrowseResponse, DirectLinkResponse, DriveAccount, Mount } from '@svc/contracts';
import { MASKED_SECRET } from '@svc/contracts';
import type { DriveAccountsRepository } from '../../src/services/storage/drives/drive-accounts.repository.js';
import { installBackends } from '../support/install-backends.js';
import { startDriveAServer, type DriveAServer } from '../support/drive-servers/drive-a-server.js';
import { startDriveBServer, type DriveBServer } from '../support/drive-servers/drive-b-server.js';
import {
  DELEGATE,
  q,
  serviceHeaders,
  startStorage,
  type StorageHarness,
} from '../services/storage/storage-harness.js';

const TREE = {
  '/Media/Movies/film.mkv': Buffer.from('film bytes'),
  '/Other/other.mkv': Buffer.from('other bytes'),
};
const TOKEN_A = 'alist-account-token-5555';
const TOKEN_A2 = 'alist-account-token-renewed-6666';
const TOKEN_B = 'drive-b-account-token-7777';
const backend = installBackends()[0]!;

/** Drive accounts on the storage node: secrets never answered, mounts that name an account, deletion rules. */
describe('drive accounts', () => {
  let storage: StorageHarness;
  let driveA: DriveAServer;
  let driveB: DriveBServer;
  let accountA: DriveAccount;
  let accountB: DriveAccount;

  const link = async (mountId: string, path: string) => {
    const answer = await request(
      `${storage.base}/api/storage/internal/mounts/${mountId}/link?path=${q(path)}`,
      {
        headers: serviceHeaders(storage.install, null),
      },
    );
    return { status: answer.statusCode, body: (await answer.body.json()) as DirectLinkResponse };
  };

  beforeAll(async () => {
    driveA = await startDriveAServer(TREE, { token: TOKEN_A });
    driveB = await startDriveBServer(TREE, { token: TOKEN_B });
    storage = await startStorage(backend.env);
    const a = await storage.api('POST', '/api/storage/drive-accounts', {
      body: {
        name: 'Alist home',
        kind: 'drive_a',
        config: { url: driveA.url, token: TOKEN_A, allowPrivateNetwork: true, userAgent: 'HomeAgent/2' },
      },
    });
    expect(a.status, a.body.toString()).toBe(201);
    accountA = a.json<DriveAccount>();
    const b = await storage.api('POST', '/api/storage/drive-accounts', {
      body: {
        name: 'Drive B',
        kind: 'drive_b',
        config: {
          url: driveB.url,
          cdnHost: driveB.cdnHost,
          cdnScheme: 'http',
          accessToken: TOKEN_B,
          allowPrivateNetwork: true,
        },
      },
    });
    expect(b.status, b.body.toString()).toBe(201);
    accountB = b.json<DriveAccount>();
  }, 300_000);

  afterAll(async () => {
    await storage?.stop();
    await driveA?.stop();
    await driveB?.stop();
    await backend.cleanup();
  });

  it('answers the credentials masked, lists accounts and seals the secrets at rest', async () => {
    expect(accountA.config.token).toBe(MASKED_SECRET);
    expect(accountA.config.userAgent).toBe('HomeAgent/2');
    expect(accountB.config.accessToken).toBe(MASKED_SECRET);
    const list = await storage.api('GET', '/api/storage/drive-accounts');
    expect(list.status).toBe(200);
    expect(list.body.toString()).not.toMatch(new RegExp(`${TOKEN_A}|${TOKEN_B}`));
    expect(list.json<{ accounts: DriveAccount[] }>().accounts.map((account) => account.name)).toEqual([
      'Alist home',
      'Drive B',
    ]);
    const repository = (
      storage.component.services.driveAccounts as unknown as { repository: DriveAccountsRepository }
    ).repository;
    const row = await repository.get(accountA.id);
    expect(String(row?.config.token)).toMatch(/^enc:v1:/);
    expect(JSON.stringify(await repository.list())).not.toMatch(new RegExp(`${TOKEN_A}|${TOKEN_B}`));
  });

  it('refuses a duplicate name, a bad config naming the field, and private addresses for a delegate', async () => {
    const duplicate = await storage.api('POST', '/api/storage/drive-accounts', {
      body: {
        name: 'alist HOME',
        kind: 'drive_a',
        config: { url: driveA.url, token: 'x', allowPrivateNetwork: true },
      },
    });
    expect(duplicate.status).toBe(409);
    const bad = await storage.api('POST', '/api/storage/drive-accounts', {
      body: { name: 'bad', kind: 'drive_a', config: { url: 'ftp://drive.example', token: 'x' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.toString()).toContain('/config/url');
    const delegated = await storage.api('POST', '/api/storage/drive-accounts', {
      identity: DELEGATE,
      body: {
        name: 'lan',
        kind: 'drive_a',
        config: { url: driveA.url, token: 'x', allowPrivateNetwork: true },
      },
    });
    expect(delegated.status).toBe(403);
  });

  it('mounts folders of an account: browses, links with the account User-Agent and id, and no secret in the mount', async () => {
    const created = await storage.api('POST', '/api/storage/mounts', {
      body: { name: 'alist movies', provider: 'drive_a', config: { accountId: accountA.id, root: '/Media' } },
    });
    expect(created.status, created.body.toString()).toBe(201);
    const mount = created.json<Mount>();
    expect(mount.config).toEqual({ accountId: accountA.id, root: '/Media' });
    const browse = await storage.api('GET', `/api/storage/mounts/${mount.id}/browse?path=Movies`);
    expect(browse.json<BrowseResponse>().entries.map((entry) => entry.name)).toEqual(['film.mkv']);
    const answer = await link(mount.id, 'Movies/film.mkv');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      provider: 'drive_a',
      accountId: accountA.id,
      headers: { 'user-agent': 'HomeAgent/2' },
    });
    const b = await storage.api('POST', '/api/storage/mounts', {
      body: { name: 'b root', provider: 'drive_b', config: { accountId: accountB.id } },
    });
    expect(b.status, b.body.toString()).toBe(201);
    const bBrowse = await storage.api('GET', `/api/storage/mounts/${b.json<Mount>().id}/browse?path=Other`);
    expect(bBrowse.json<BrowseResponse>().entries.map((entry) => entry.name)).toEqual(['other.mkv']);
    const counted = await storage.api('GET', '/api/storage/drive-accounts');
    expect(
      counted.json<{ accounts: DriveAccount[] }>().accounts.map((account) => account.mountCount),
    ).toEqual([1, 1]);
  });

  it('refuses a mount naming an unknown account or an account of the other drive', async () => {
    const unknown = await storage.api('POST', '/api/storage/mounts', {
      body: {
        name: 'ghost',
        provider: 'drive_a',
        config: { accountId: '00000000-0000-4000-8000-0000000000aa', root: '/' },
      },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.toString()).toContain('/config/accountId');
    const otherKind = await storage.api('POST', '/api/storage/mounts', {
      body: { name: 'mixed', provider: 'drive_a', config: { accountId: accountB.id, root: '/' } },
    });
    expect(otherKind.status).toBe(400);
  });

  it('a renewed token reaches every mount of the account; a masked one is kept', async () => {
    const created = await storage.api('POST', '/api/storage/mounts', {
      body: { name: 'alist other', provider: 'drive_a', config: { accountId: accountA.id, root: '/Other' } },
    });
    const mount = created.json<Mount>();
    expect((await storage.api('POST', `/api/storage/mounts/${mount.id}/check`)).json()).toEqual({ ok: true });
    driveA.tokens.clear();
    driveA.tokens.add(TOKEN_A2);
    const refused = await storage.api('POST', `/api/storage/mounts/${mount.id}/check`);
    expect(refused.json()).toMatchObject({ ok: false, error: { code: 'DRIVE_TOKEN_INVALID' } });
    const renewed = await storage.api('PATCH', `/api/storage/drive-accounts/${accountA.id}`, {
      body: { config: { ...accountA.config, token: TOKEN_A2 } },
    });
    expect(renewed.status, renewed.body.toString()).toBe(200);
    expect(renewed.body.toString()).not.toContain(TOKEN_A2);
    expect((await storage.api('POST', `/api/storage/mounts/${mount.id}/check`)).json()).toEqual({ ok: true });
    const kept = await storage.api('PATCH', `/api/storage/drive-accounts/${accountA.id}`, {
      body: { name: 'Alist home (renewed)', config: { ...accountA.config, token: MASKED_SECRET } },
    });
    expect(kept.status, kept.body.toString()).toBe(200);
    expect(kept.json<DriveAccount>().name).toBe('Alist home (renewed)');
    expect((await storage.api('POST', `/api/storage/mounts/${mount.id}/check`)).json()).toEqual({ ok: true });
  });

  it('deletes an account only once no mount uses it', async () => {
    const fresh = await storage.api('POST', '/api/storage/drive-accounts', {
      body: {
        name: 'spare',
        kind: 'drive_a',
        config: { url: driveA.url, token: TOKEN_A2, allowPrivateNetwork: true },
      },
    });
    const spare = fresh.json<DriveAccount>();
    const mount = (
      await storage.api('POST', '/api/storage/mounts', {
        body: { name: 'spare mount', provider: 'drive_a', config: { accountId: spare.id } },
      })
    ).json<Mount>();
    const refused = await storage.api('DELETE', `/api/storage/drive-accounts/${spare.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.toString()).toContain('DRIVE_ACCOUNT_IN_USE');
    expect((await storage.api('DELETE', `/api/storage/mounts/${mount.id}`)).status).toBe(204);
    expect((await storage.api('DELETE', `/api/storage/drive-accounts/${spare.id}`)).status).toBe(204);
    expect((await storage.api('DELETE', `/api/storage/drive-accounts/${spare.id}`)).status).toBe(404);
  });
});
