import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { loadRole } from '../../src/runtime/roles.js';
import { installBackends } from '../support/install-backends.js';
import { startTestInstall, waitFor, type TestInstall } from '../support/runtime.js';

type Json = Record<string, unknown>;

/**
 * The whole control plane and the storage node in one test process, used the way a browser and curl use
 * the console entrance: sign-in, tokens, the login lock behind proxies, revocation, and the transfer
 * event stream with an admin token.
 */
describe.each(installBackends())('the console entrance end to end on $label', (backend) => {
  let install: TestInstall;
  let entrance: string;
  let gateway: string;
  const folders: string[] = [];
  // Requests from 127.0.0.2 come from a trusted proxy; from 127.0.0.1 (the frontend too) they do not.
  const viaProxy = new Agent({ localAddress: '127.0.0.2' });

  async function call(
    base: string,
    method: string,
    route: string,
    options: { headers?: Record<string, string>; body?: unknown; dispatcher?: Agent } = {},
  ): Promise<{ status: number; headers: Record<string, unknown>; body: Json }> {
    const response = await request(`${base}${route}`, {
      method: method as 'GET',
      headers: {
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      dispatcher: options.dispatcher,
    });
    const text = await response.body.text();
    return {
      status: response.statusCode,
      headers: response.headers,
      body: text ? (JSON.parse(text) as Json) : {},
    };
  }

  beforeAll(async () => {
    install = await startTestInstall(
      [...(await loadRole('standalone-control')), ...(await loadRole('storage'))],
      backend.env,
      { env: { SVC_TRUSTED_PROXIES: '127.0.0.2' } },
    );
    entrance = install.url('frontend');
    gateway = install.url('gateway');
    await waitFor(async () =>
      (await call(entrance, 'GET', '/api/storage/ping')).status === 200 ? true : undefined,
    );
    await waitFor(async () =>
      (await call(entrance, 'GET', '/api/auth/setup/status')).status === 200 ? true : undefined,
    );
  });

  afterAll(async () => {
    await install?.stop();
    await viaProxy.close();
    await backend.cleanup();
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the OpenAPI document of the admin and portal API on the console entrance, before sign-in', async () => {
    const answer = await call(entrance, 'GET', '/api/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toBe('3.1.0');
    const paths = answer.body.paths as Record<string, Record<string, { operationId: string }>>;
    expect(paths['/api/license/status']?.get?.operationId).toBe('config.getLicenseStatus');
    // Service-to-service routes stay out of the public reference.
    expect(Object.keys(paths).filter((route) => route.includes('/internal/'))).toEqual([]);
  });

  it('sets up the first administrator once, signs in and revokes at once on sign-out', async () => {
    expect((await call(entrance, 'GET', '/api/auth/setup/status')).body).toEqual({ adminExists: false });
    const setup = await call(entrance, 'POST', '/api/auth/setup/admin', {
      body: { username: 'root', password: 'root-password-1' },
    });
    expect(setup.status).toBe(201);
    const again = await call(entrance, 'POST', '/api/auth/setup/admin', {
      body: { username: 'second', password: 'root-password-1' },
    });
    expect(again.status).toBe(409);

    const login = await call(entrance, 'POST', '/api/auth/login', {
      body: { username: 'root', password: 'root-password-1', client: 'console' },
    });
    expect(login.status).toBe(200);
    const adminToken = String(login.body.adminToken);
    expect(adminToken).toMatch(/^svc_adm_/);
    const users = await call(entrance, 'GET', '/api/auth/admin/users', {
      headers: { 'x-admin-token': adminToken },
    });
    expect(users.status).toBe(200);
    // The access token is not an admin token.
    const wrongKind = await call(entrance, 'GET', '/api/auth/admin/users', {
      headers: { 'x-admin-token': String(login.body.accessToken) },
    });
    expect(wrongKind.status).toBe(401);

    // The gateway has the token's answer cached; sign-out still ends it for the very next request.
    expect(
      (await call(entrance, 'POST', '/api/auth/logout', { headers: { 'x-admin-token': adminToken } })).status,
    ).toBeLessThan(300);
    const after = await call(entrance, 'GET', '/api/auth/admin/users', {
      headers: { 'x-admin-token': adminToken },
    });
    expect(after.status).toBe(401);
  });

  it('refuses a signed-in user without the permission with 403', async () => {
    const login = await call(entrance, 'POST', '/api/auth/login', {
      body: { username: 'root', password: 'root-password-1', client: 'console' },
    });
    const adminToken = String(login.body.adminToken);
    const created = await call(entrance, 'POST', '/api/auth/admin/users', {
      headers: { 'x-admin-token': adminToken },
      body: { username: 'librarian', password: 'librarian-pass-1', permissions: ['library'] },
    });
    expect(created.status).toBe(201);
    const librarian = await call(entrance, 'POST', '/api/auth/login', {
      body: { username: 'librarian', password: 'librarian-pass-1', client: 'console' },
    });
    expect(librarian.status).toBe(200);
    const denied = await call(entrance, 'GET', '/api/auth/admin/users', {
      headers: { 'x-admin-token': String(librarian.body.adminToken) },
    });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
  });

  it('locks the address a trusted proxy reports, and only that one', async () => {
    const attempt = (forwardedFor: string, password: string) =>
      call(gateway, 'POST', '/api/auth/login', {
        dispatcher: viaProxy,
        headers: { 'x-forwarded-for': forwardedFor },
        body: { username: 'root', password, client: 'console' },
      });
    for (let i = 1; i <= 4; i++) expect((await attempt('198.51.100.1', 'wrong-password')).status).toBe(401);
    expect((await attempt('198.51.100.1', 'wrong-password')).status).toBe(401);
    const locked = await attempt('198.51.100.1', 'root-password-1');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(locked.body).toMatchObject({ error: { code: 'LOGIN_LOCKED' } });
    // Another client behind the same proxy is not affected.
    expect((await attempt('198.51.100.2', 'root-password-1')).status).toBe(200);
  });

  it('ignores X-Forwarded-For from an untrusted peer: it can neither lock another address nor escape its lock', async () => {
    const attempt = (forwardedFor: string, password: string) =>
      call(gateway, 'POST', '/api/auth/login', {
        headers: { 'x-forwarded-for': forwardedFor },
        body: { username: 'librarian', password, client: 'console' },
      });
    // Five failures claiming five different addresses all count against the real peer (127.0.0.1).
    for (let i = 1; i <= 5; i++) expect((await attempt(`203.0.113.${i}`, 'wrong-password')).status).toBe(401);
    expect((await attempt('203.0.113.99', 'librarian-pass-1')).status).toBe(429);
    // The addresses it named were never locked: the same user signs in through the trusted proxy.
    const elsewhere = await call(gateway, 'POST', '/api/auth/login', {
      dispatcher: viaProxy,
      headers: { 'x-forwarded-for': '203.0.113.1' },
      body: { username: 'librarian', password: 'librarian-pass-1', client: 'console' },
    });
    expect(elsewhere.status).toBe(200);
  });

  it('takes inbound webhooks on the console entrance with the token it showed once', async () => {
    const login = await call(entrance, 'POST', '/api/auth/login', {
      body: { username: 'root', password: 'root-password-1', client: 'console' },
    });
    const adminToken = String(login.body.adminToken);
    expect(
      (await call(entrance, 'POST', '/api/webhook/not-a-token', { body: { data: ['/Movies/x.mkv'] } }))
        .status,
    ).toBe(403);
    const first = await call(entrance, 'POST', '/api/media/webhook/token/regenerate', {
      headers: { 'x-admin-token': adminToken },
    });
    expect(first.status).toBe(200);
    const token = String(first.body.token);
    const listed = await call(entrance, 'GET', '/api/media/webhook/token', {
      headers: { 'x-admin-token': adminToken },
    });
    expect(listed.body).toMatchObject({ exists: true });
    expect(JSON.stringify(listed.body)).not.toContain(token);
    const empty = await call(entrance, 'POST', `/api/webhook/${token}`, { body: { data: [] } });
    expect(empty.status).toBe(400);
    const accepted = await call(entrance, 'POST', `/api/webhook/${token}`, {
      body: { data: ['/Movies/Heat (1995)/Heat (1995).mkv'] },
    });
    expect(accepted.status).toBeLessThan(300);
    // Regenerating invalidates the old token at once.
    await call(entrance, 'POST', '/api/media/webhook/token/regenerate', {
      headers: { 'x-admin-token': adminToken },
    });
    expect(
      (await call(entrance, 'POST', `/api/webhook/${token}`, { body: { data: ['/Movies/a.mkv'] } })).status,
    ).toBe(403);
  });

  it('streams transfer progress to curl -N on the console entrance with an admin token', async () => {
    const login = await call(entrance, 'POST', '/api/auth/login', {
      body: { username: 'root', password: 'root-password-1', client: 'console' },
    });
    const adminToken = String(login.body.adminToken);
    const root = mkdtempSync(path.join(tmpdir(), 'svc-entrance-mount-'));
    folders.push(root);
    const payload = randomBytes(4 * 1024 * 1024);
    writeFileSync(path.join(root, 'film.bin'), payload);
    const mount = await call(entrance, 'POST', '/api/storage/mounts', {
      headers: { 'x-admin-token': adminToken },
      body: { name: 'films', provider: 'local', config: { root } },
    });
    expect(mount.status, JSON.stringify(mount.body)).toBe(201);
    const mountId = String(mount.body.id);

    const curl = spawn('curl', [
      '-sS',
      '-N',
      '-H',
      'Accept: text/event-stream',
      '-H',
      `X-Admin-Token: ${adminToken}`,
      `${entrance}/api/storage/mounts/transfer/events`,
    ]);
    const events: { state: string; done: number; at: number }[] = [];
    let buffer = '';
    let connected = false;
    curl.stdout.on('data', (chunk: Buffer) => {
      connected = true;
      buffer += chunk.toString();
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (!data) continue;
        const transfer = JSON.parse(data.slice(6)) as { state: string; bytes: { done: number } };
        events.push({ state: transfer.state, done: transfer.bytes.done, at: Date.now() });
      }
    });
    try {
      // The stream's opening comment is written once the subscription exists.
      await waitFor(() => (connected ? true : undefined), 10_000, 20);
      const copy = await call(entrance, 'POST', `/api/storage/mounts/${mountId}/copy`, {
        headers: { 'x-admin-token': adminToken },
        body: {
          path: 'film.bin',
          targetMountId: mountId,
          targetPath: 'film copy.bin',
          maxBytesPerSecond: 2 * 1024 * 1024,
        },
      });
      expect(copy.status, JSON.stringify(copy.body)).toBe(202);
      const transferId = String(copy.body.id);
      const finished = await waitFor(
        async () => {
          const state = await call(entrance, 'GET', `/api/storage/transfers/${transferId}`, {
            headers: { 'x-admin-token': adminToken },
          });
          return state.body.state === 'succeeded' ? Date.now() : undefined;
        },
        30_000,
        100,
      );
      const progress = events.filter((event) => event.state === 'running' && event.done > 0);
      expect(progress.length).toBeGreaterThanOrEqual(2);
      // Events reach curl while the copy runs, not in one burst at its end.
      expect(progress[0]!.at).toBeLessThan(finished - 500);
    } finally {
      curl.kill('SIGTERM');
    }
  });
});
