import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { portEnv } from '../support/ports.js';
import { runSvc, type SvcProcess } from '../support/svc-process.js';

let svc: SvcProcess | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  if (svc && svc.child.exitCode === null) {
    svc.child.kill('SIGINT');
    await svc.exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function call(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await request(url, {
    method: (options.method ?? 'GET') as 'GET',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe('logs never carry a password or a token', () => {
  it('a sign-in session at trace level leaves no secret in any log line', { timeout: 240_000 }, async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-secrets-'));
    const env = { ...(await portEnv()), SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'trace' };
    svc = runSvc(['standalone'], env);
    await svc.waitForLog(/standalone edition is up/);
    const base = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;

    const password = 'Pw-7f3a9c1e-first';
    const newPassword = 'Pw-2b8d4e6f-second';
    const wrongPassword = 'Pw-0a1b2c3d-wrong';
    expect(
      (await call(`${base}/api/auth/setup/admin`, { method: 'POST', body: { username: 'root', password } }))
        .status,
    ).toBeLessThan(300);
    await call(`${base}/api/auth/login`, {
      method: 'POST',
      body: { username: 'root', password: wrongPassword, client: 'console' },
    });
    const login = await call(`${base}/api/auth/login`, {
      method: 'POST',
      body: { username: 'root', password, client: 'console' },
    });
    expect(login.status).toBe(200);
    const adminToken = String(login.body.adminToken);
    const accessToken = String(login.body.accessToken);

    expect((await call(`${base}/api/auth/me`, { headers: { 'x-admin-token': adminToken } })).status).toBe(
      200,
    );
    expect(
      (await call(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status,
    ).toBe(200);
    // Tokens in query strings, as some clients send them, are redacted too.
    await call(`${base}/api/auth/me?api_key=${accessToken}&token=${adminToken}`);
    const user = await call(`${base}/api/auth/admin/users`, {
      method: 'POST',
      headers: { 'x-admin-token': adminToken },
      body: { username: 'alice', password: 'Pw-9e8d7c6b-alice' },
    });
    expect(user.status).toBe(201);
    expect(
      (
        await call(`${base}/api/auth/me/password`, {
          method: 'PUT',
          headers: { 'x-admin-token': adminToken },
          body: { currentPassword: password, newPassword },
        })
      ).status,
    ).toBeLessThan(300);
    expect((await call(`${base}/api/auth/me`, { headers: { 'x-admin-token': adminToken } })).status).toBe(
      401,
    );

    svc.child.kill('SIGINT');
    await svc.exited;
    const logs = svc.stdout() + svc.stderr();
    expect(logs.length).toBeGreaterThan(1000);
    expect(logs).toContain('/api/auth/me');
    for (const secret of [
      password,
      newPassword,
      wrongPassword,
      'Pw-9e8d7c6b-alice',
      adminToken,
      accessToken,
    ]) {
      expect(logs.includes(secret), `a log line holds ${secret.slice(0, 8)}…`).toBe(false);
      // The random part alone must not appear either (e.g. a prefix stripped before logging).
      const randomPart = secret.replace(/^svc_[a-z]+_/, '');
      expect(logs.includes(randomPart)).toBe(false);
    }
  });
});
