import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import type { AuditAction, AuditRecord } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installBackends } from '../support/install-backends.js';
import { call, startPlaybackInstall, type Json, type PlaybackInstall } from '../support/playback-install.js';
import { waitFor } from '../support/runtime.js';

/** The address the console client claims through the (trusted, loopback) entrance. */
const CLIENT_IP = '198.51.100.23';

/**
 * Every family of administrative change, made through the console entrance of a whole install, lands
 * in the audit log with its actor, client address, action, target and before/after of the changed
 * fields, and no secret (docs/audit.md).
 */
describe('audit trail through the console entrance', () => {
  const backend = installBackends()[0]!;
  let env: PlaybackInstall;
  let rootId: string;
  let scratch: string;
  let mountId: string;

  const console_ = (method: string, route: string, body?: unknown, clientIp = CLIENT_IP) =>
    call(env.entrance, method, route, {
      headers: { 'x-admin-token': env.adminToken, 'x-forwarded-for': clientIp },
      body,
    });
  const ok = async (method: string, route: string, body?: unknown): Promise<Json> => {
    const answer = await console_(method, route, body);
    expect(answer.status, `${method} ${route}: ${answer.text}`).toBeLessThan(300);
    return answer.body;
  };
  /** The newest entry of an action (waits: some are written right after the answer). */
  const newest = async (action: AuditAction, extra = ''): Promise<AuditRecord> =>
    waitFor(async () => {
      const answer = await console_('GET', `/api/auth/admin/audit-log?action=${action}&pageSize=20${extra}`);
      expect(answer.status, answer.text).toBe(200);
      return (answer.body.items as AuditRecord[])[0];
    });
  /** An entry made by root from CLIENT_IP, with no secret anywhere in it. */
  const entryOf = async (action: AuditAction, secrets: string[] = []): Promise<AuditRecord> => {
    const entry = await newest(action);
    expect(entry, action).toMatchObject({ actorId: rootId, actorName: 'root', clientIp: CLIENT_IP, action });
    for (const secret of secrets)
      expect(JSON.stringify(entry), `${action} leaks a secret`).not.toContain(secret);
    return entry;
  };

  beforeAll(async () => {
    env = await startPlaybackInstall(backend.env);
    rootId = String((await ok('GET', '/api/auth/me')).id);
    scratch = mkdtempSync(path.join(tmpdir(), 'svc-audit-'));
    mkdirSync(path.join(scratch, 'Movies'));
  }, 240_000);
  afterAll(async () => {
    await env?.stop();
    await backend.cleanup();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('mounts: create, edit and delete with the changed fields', async () => {
    const created = await ok('POST', '/api/storage/mounts', {
      name: 'scratch',
      provider: 'local',
      config: { root: scratch },
    });
    mountId = String(created.id);
    expect((await entryOf('mount.create')).details).toMatchObject({
      before: null,
      after: { name: 'scratch', provider: 'local', 'config.root': scratch },
    });
    expect(await entryOf('mount.create')).toMatchObject({ targetType: 'mount', targetId: mountId });

    await ok('PATCH', `/api/storage/mounts/${mountId}`, { name: 'scratch renamed' });
    expect((await entryOf('mount.update')).details).toEqual({
      before: { name: 'scratch' },
      after: { name: 'scratch renamed' },
    });

    const doomed = await ok('POST', '/api/storage/mounts', {
      name: 'doomed',
      provider: 'local',
      config: { root: path.join(scratch, 'Movies') },
    });
    await ok('DELETE', `/api/storage/mounts/${String(doomed.id)}`);
    expect(await entryOf('mount.delete')).toMatchObject({
      targetId: String(doomed.id),
      details: { before: { name: 'doomed' }, after: null },
    });
  });

  it('files: a deletion, an upload that overwrites and a copy that overwrites', async () => {
    writeFileSync(path.join(scratch, 'gone.txt'), 'to be deleted');
    await ok('POST', `/api/storage/mounts/${mountId}/delete`, { path: 'gone.txt', recursive: false });
    expect(await entryOf('file.delete')).toMatchObject({
      targetType: 'file',
      targetId: `${mountId}:gone.txt`,
      details: { before: { path: 'gone.txt', type: 'file', size: 13 }, after: null },
    });

    writeFileSync(path.join(scratch, 'notes.txt'), 'old');
    const bytes = Buffer.from('new content');
    const upload = await ok('POST', `/api/storage/mounts/${mountId}/uploads`, {
      path: 'notes.txt',
      size: bytes.length,
      overwrite: true,
    });
    const chunk = await request(
      `${env.entrance}/api/storage/mounts/${mountId}/uploads/${String(upload.id)}/chunks/0`,
      {
        method: 'PUT',
        headers: {
          'x-admin-token': env.adminToken,
          'x-forwarded-for': CLIENT_IP,
          'content-type': 'application/octet-stream',
        },
        body: bytes,
      },
    );
    expect(chunk.statusCode, await chunk.body.text()).toBe(200);
    await ok('POST', `/api/storage/mounts/${mountId}/uploads/${String(upload.id)}/complete`);
    expect(await entryOf('file.upload-overwrite')).toMatchObject({
      targetId: `${mountId}:notes.txt`,
      details: { before: { size: 3 }, after: { size: bytes.length } },
    });

    writeFileSync(path.join(scratch, 'copy-source.txt'), 'source bytes');
    await ok('POST', `/api/storage/mounts/${mountId}/copy`, {
      path: 'copy-source.txt',
      targetPath: 'notes.txt',
      overwrite: true,
    });
    expect(await entryOf('file.transfer-overwrite')).toMatchObject({
      targetId: `${mountId}:notes.txt`,
      details: {
        kind: 'copy',
        before: { path: 'notes.txt', size: bytes.length },
        after: { path: 'copy-source.txt', size: 12 },
      },
    });
  });

  it('libraries: create, edit, scan start and delete', async () => {
    const nodeId = env.install.context.settings.storageNodeId;
    const library = await ok('POST', '/api/media/libraries', {
      name: 'Audit films',
      type: 'movies',
      sources: [{ nodeId, mountId, path: '/Movies' }],
    });
    const id = String(library.id);
    expect(await entryOf('library.create')).toMatchObject({
      targetType: 'library',
      targetId: id,
      details: { before: null, after: { name: 'Audit films', type: 'movies' } },
    });
    await ok('PATCH', `/api/media/libraries/${id}`, { name: 'Audit movies' });
    expect((await entryOf('library.update')).details).toEqual({
      before: { name: 'Audit films' },
      after: { name: 'Audit movies' },
    });
    // Creating it started its first scan, recorded as a scan start of the same administrator.
    expect(await entryOf('library.scan-start')).toMatchObject({
      targetId: id,
      details: { mode: 'full', scanId: (library.lastScan as Json).id },
    });
    await waitFor(async () => {
      const state = await console_('GET', `/api/media/libraries/${id}/scan`);
      const scan = (state.body.scan ?? {}) as Json;
      return scan.state === 'running' || scan.state === 'queued' ? undefined : true;
    }, 60_000);
    await ok('DELETE', `/api/media/libraries/${id}`);
    expect(await entryOf('library.delete')).toMatchObject({
      targetId: id,
      details: { before: { name: 'Audit movies' }, after: null },
    });
  });

  it('nodes: create, edit, external address, token reveal and regeneration, delete, no token logged', async () => {
    const created = await ok('POST', '/api/config/nodes', {
      serviceType: 'manual-play-agent-endpoint',
      name: 'Proxy',
      externalAddress: { protocol: 'https', host: 'play.example.invalid' },
    });
    const node = created.node as Json;
    const nodeId = String(node.nodeId);
    const credentials = created.credentials as Json;
    const firstToken = String(credentials.endpointToken);
    expect(await entryOf('node.create', [firstToken])).toMatchObject({
      targetType: 'node',
      targetId: nodeId,
      details: { before: null, after: { name: 'Proxy', externalAddress: 'https://play.example.invalid' } },
    });

    await ok('PATCH', `/api/config/nodes/${nodeId}`, { name: 'Proxy 2', note: 'for the audit' });
    expect((await entryOf('node.update')).details).toEqual({
      before: { name: 'Proxy', note: '' },
      after: { name: 'Proxy 2', note: 'for the audit' },
    });
    await ok('PATCH', `/api/config/nodes/${nodeId}`, {
      externalAddress: { protocol: 'https', host: 'play2.example.invalid', port: 8443 },
    });
    expect((await entryOf('node.external-address')).details).toEqual({
      before: { externalAddress: 'https://play.example.invalid' },
      after: { externalAddress: 'https://play2.example.invalid:8443' },
    });

    const shown = await ok('GET', `/api/config/nodes/${nodeId}/credentials`);
    expect(await entryOf('node.credentials-reveal', [String(shown.endpointToken)])).toMatchObject({
      targetId: nodeId,
    });
    const regenerated = await ok('POST', `/api/config/nodes/${nodeId}/endpoint-token`);
    const newToken = String(regenerated.endpointToken);
    expect(await entryOf('node.endpoint-token-regenerate', [firstToken, newToken])).toMatchObject({
      targetId: nodeId,
    });
    await ok('DELETE', `/api/config/nodes/${nodeId}`);
    expect(await entryOf('node.delete', [firstToken, newToken])).toMatchObject({
      targetId: nodeId,
      details: { before: { name: 'Proxy 2' }, after: null },
    });
  });

  it('system settings in every service: before/after, secrets masked', async () => {
    await ok('PUT', '/api/auth/admin/branding', { systemName: 'Audited Media' });
    expect((await entryOf('settings.branding')).details).toMatchObject({
      after: { systemName: 'Audited Media' },
    });

    await ok('PUT', '/api/config/play-agent/policy', { metadataCacheTtlSeconds: 1234 });
    const policy = (await entryOf('settings.play-agent-policy')).details;
    expect(Object.keys(policy).sort()).toEqual(['after', 'before']);
    expect(policy.after).toEqual({ metadataCacheTtlSeconds: 1234 });
    expect(Object.keys(policy.before as object)).toEqual(['metadataCacheTtlSeconds']);

    await ok('PUT', '/api/media/protocol/proto_a/settings', {
      serverName: 'Audit Server',
      productName: 'SVC Media Server',
    });
    expect((await entryOf('settings.protocol')).details).toEqual({
      before: { serverName: 'SVC Media' },
      after: { serverName: 'Audit Server' },
    });

    const apiKey = 'metadata-api-key-1234567890';
    await ok('PUT', '/api/media/settings/metadata-provider', {
      enabled: false,
      baseUrl: 'https://metadata.example.invalid/3',
      apiKey,
    });
    const metadata = await entryOf('settings.metadata-provider', [apiKey, '7890']);
    expect(metadata.details).toMatchObject({
      after: { baseUrl: 'https://metadata.example.invalid/3', apiKeySet: '[redacted]' },
    });

    const inbound = await ok('POST', '/api/media/webhook/token/regenerate');
    const inboundToken = String(inbound.token);
    expect(await entryOf('settings.inbound-webhook-token', [inboundToken])).toMatchObject({
      details: { after: { issuedAt: inbound.createdAt } },
    });

    await ok('PUT', '/api/auth/admin/activity-log/retention', { days: 45 });
    expect((await entryOf('settings.activity-log-retention')).details).toMatchObject({
      after: { days: 45 },
    });

    await ok('PUT', '/api/auth/admin/traffic-quotas/default-policy', {
      total: { enabled: true, amount: 5, unit: 'GB', period: 'month' },
      routes: [],
    });
    expect((await entryOf('settings.default-quota-policy')).details).toMatchObject({
      after: { 'total.amount': 5, 'total.unit': 'GB' },
    });

    await ok('PUT', '/api/config/system-settings/mcp', { enabled: true });
    expect((await entryOf('settings.mcp')).details).toEqual({
      before: { enabled: false },
      after: { enabled: true },
    });
  });

  it('webhook endpoints: create, edit, test send and delete, secret headers and URL tokens masked', async () => {
    const headerSecret = 'header-secret-value-42';
    const authorization = 'Bearer plain-authorization-77';
    const urlToken = 'url-query-token-99';
    const created = await ok('POST', '/api/media/outbound-webhooks', {
      name: 'Audit hook',
      url: `http://127.0.0.1:9/hook?token=${urlToken}`,
      allowPrivateNetwork: true,
      headers: [
        { key: 'X-Hook-Secret', value: headerSecret, sensitive: true },
        { key: 'Authorization', value: authorization },
      ],
    });
    const id = String(created.id);
    const secrets = [headerSecret, authorization, 'plain-authorization-77', urlToken];
    expect(await entryOf('webhook.create', secrets)).toMatchObject({
      targetType: 'webhook',
      targetId: id,
      details: { before: null, after: { name: 'Audit hook', enabled: true } },
    });

    await ok('PUT', `/api/media/outbound-webhooks/${id}`, { name: 'Audit hook 2', enabled: false });
    expect((await entryOf('webhook.update', secrets)).details).toEqual({
      before: { name: 'Audit hook', enabled: true },
      after: { name: 'Audit hook 2', enabled: false },
    });
    const rotated = 'rotated-header-secret-43';
    await ok('PUT', `/api/media/outbound-webhooks/${id}`, {
      headers: [{ key: 'X-Hook-Secret', value: rotated, sensitive: true }],
    });
    expect((await entryOf('webhook.update', [...secrets, rotated])).details).toHaveProperty('after.headers');

    await ok('POST', `/api/media/outbound-webhooks/${id}/test`);
    expect(await entryOf('webhook.test', [...secrets, rotated])).toMatchObject({
      targetId: id,
      details: { ok: false },
    });
    await ok('DELETE', `/api/media/outbound-webhooks/${id}`);
    expect(await entryOf('webhook.delete', [...secrets, rotated])).toMatchObject({
      targetId: id,
      details: { before: { name: 'Audit hook 2' }, after: null },
    });
  });

  it('sign-in failures and the lock: the address and the name tried, never the password', async () => {
    const attacker = '198.51.100.77';
    const password = 'wrong-password-guess';
    for (let attempt = 0; attempt < 5; attempt++) {
      const answer = await call(env.entrance, 'POST', '/api/auth/login', {
        headers: { 'x-forwarded-for': attacker },
        body: { username: 'root', password, client: 'console' },
      });
      expect(answer.status).toBe(401);
    }
    const failures = await console_('GET', '/api/auth/admin/audit-log?action=auth.login-failed&actor=ROOT');
    expect(failures.body.items).toHaveLength(5);
    const locked = await newest('auth.login-locked', '&actor=root');
    for (const entry of [...(failures.body.items as AuditRecord[]), locked]) {
      expect(entry).toMatchObject({
        actorId: null,
        actorName: 'root',
        clientIp: attacker,
        targetType: 'user',
        targetId: 'root',
        details: { username: 'root' },
      });
      expect(JSON.stringify(entry)).not.toContain(password);
    }
    expect(locked.details).toMatchObject({ failures: 5, lockSeconds: 60 });
    // The filter by actor keeps root's own changes apart from other names.
    const others = await console_('GET', '/api/auth/admin/audit-log?actor=nobody-at-all');
    expect(others.body).toMatchObject({ items: [], total: 0 });
  });
});
