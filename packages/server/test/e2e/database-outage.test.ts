import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { IDENTITY_HEADER, encodeIdentity } from '../../src/platform/http/route-auth.js';
import { SERVICE_TOKEN_HEADER } from '../../src/platform/service-token.js';
import { portEnv, type PortEnv } from '../support/ports.js';
import {
  skipWithoutPostgresServer,
  startPrivatePostgres,
  type PrivatePostgres,
} from '../support/private-postgres.js';
import { waitFor } from '../support/runtime.js';
import { isAlive, runSvc, type SvcProcess } from '../support/svc-process.js';

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: { error?: { code?: string; message?: string } } & Record<string, unknown>;
}

/** One request; a hanging answer fails it (the limits are far above what a working install needs). */
async function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const response = await request(url, {
    method: (options.method ?? 'GET') as 'GET',
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const text = await response.body.text();
  let body: Answer['body'] = {};
  try {
    body = text ? (JSON.parse(text) as Answer['body']) : {};
  } catch {
    body = { text };
  }
  const retryAfter = response.headers['retry-after'];
  return { status: response.statusCode, retryAfter: retryAfter as string | undefined, body };
}

/** A route of each service that reads its database. */
const ROUTES = [
  { service: 'user', port: 'SVC_USER_PORT', path: '/api/auth/admin/users' },
  { service: 'media', port: 'SVC_MEDIA_PORT', path: '/api/media/libraries' },
  { service: 'config', port: 'SVC_CONFIG_PORT', path: '/api/config/nodes' },
  { service: 'storage', port: 'SVC_STORAGE_PORT', path: '/api/storage/mounts' },
] as const;

/**
 * A standalone install on a PostgreSQL server of its own (external database mode): while the server is
 * stopped every service answers 503 SERVICE_UNAVAILABLE with Retry-After and the error body (never 500,
 * never a hang), and once it runs again the same routes answer 200 without restarting anything.
 */
describe.skipIf(skipWithoutPostgresServer)(
  'a standalone install while its PostgreSQL is stopped and started again',
  () => {
    let cluster: PrivatePostgres | undefined;
    let svc: SvcProcess | undefined;
    let env: PortEnv;
    let dataDir: string | undefined;
    let adminToken = '';
    let serviceToken = '';
    let identity = '';

    const entrance = (route: string) => `http://127.0.0.1:${env.SVC_FRONTEND_PORT}${route}`;
    const viaEntrance = (route: string) =>
      send(entrance(route), { headers: { 'x-admin-token': adminToken } });
    const direct = (port: keyof PortEnv, route: string) =>
      send(`http://127.0.0.1:${env[port]}${route}`, {
        headers: { [SERVICE_TOKEN_HEADER]: serviceToken, [IDENTITY_HEADER]: identity },
      });
    const playerSignIn = () =>
      send(`http://${env.PLAY_AGENT_LISTEN}/Users/AuthenticateByName`, {
        method: 'POST',
        headers: { 'x-emby-authorization': 'Emby Client="t", Device="t", DeviceId="t", Version="1"' },
        body: { Username: 'root', Pw: 'root-password-1' },
      });
    const expectUnavailable = (answer: Answer, where: string, codes: readonly string[]) => {
      expect({ where, status: answer.status }).toEqual({ where, status: 503 });
      expect(codes, `${where}: ${JSON.stringify(answer.body)}`).toContain(answer.body.error?.code);
      expect(answer.body.error?.message, where).toEqual(expect.any(String));
      expect(Number(answer.retryAfter), `${where} Retry-After`).toBeGreaterThan(0);
    };

    beforeAll(async () => {
      cluster = await startPrivatePostgres();
      env = await portEnv();
      dataDir = mkdtempSync(path.join(tmpdir(), 'svc-db-outage-'));
      svc = runSvc(['standalone'], {
        ...env,
        SVC_DATA_DIR: dataDir,
        SVC_DB_MODE: 'external',
        SVC_DATABASE_URL: cluster.url,
      });
      await svc.waitForLog(/standalone edition is up/, 120_000);
      await waitFor(async () =>
        (await send(entrance('/api/auth/setup/status'))).status === 200 ? true : undefined,
      );
      const setup = await send(entrance('/api/auth/setup/admin'), {
        method: 'POST',
        body: { username: 'root', password: 'root-password-1' },
      });
      expect(setup.status).toBe(201);
      const login = await send(entrance('/api/auth/login'), {
        method: 'POST',
        body: { username: 'root', password: 'root-password-1', client: 'console' },
      });
      adminToken = String(login.body.adminToken);
      serviceToken = readFileSync(path.join(dataDir, 'secrets', 'service-token'), 'utf8').trim();
      const account = await send(`http://127.0.0.1:${env.SVC_USER_PORT}/api/auth/internal/introspect`, {
        method: 'POST',
        headers: { [SERVICE_TOKEN_HEADER]: serviceToken },
        body: { token: adminToken, kind: 'admin' },
      });
      expect(account.body.active).toBe(true);
      identity = encodeIdentity({
        userId: String(account.body.userId),
        username: String(account.body.username),
        role: account.body.role as 'admin',
        permissions: account.body.permissions as [],
        tokenKind: 'admin',
        tokenId: String(account.body.tokenId),
        clientIp: '127.0.0.1',
      });
      // The storage node registers by itself after the start; the entrance routes to it once it has.
      await waitFor(
        async () => ((await viaEntrance('/api/storage/mounts')).status === 200 ? true : undefined),
        180_000,
      );
    }, 240_000);

    afterAll(async () => {
      if (svc && svc.child.exitCode === null && svc.child.signalCode === null) {
        svc.child.kill('SIGINT');
        await Promise.race([svc.exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
        if (svc.child.exitCode === null) svc.child.kill('SIGKILL');
      }
      for (const pid of svc?.childPids() ?? []) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      await cluster?.remove();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('answers 503 with Retry-After on every service while the database is down, and 200 again after', async () => {
      for (const route of ROUTES) {
        expect((await viaEntrance(route.path)).status, route.path).toBe(200);
        expect((await direct(route.port, route.path)).status, route.path).toBe(200);
      }
      expect((await playerSignIn()).status).toBe(200);
      const pidsBefore = svc!.childPids();

      await cluster!.stop();

      for (const route of ROUTES) {
        // The service itself, on its own port.
        const own = await direct(route.port, route.path);
        expectUnavailable(own, `${route.service} service`, ['SERVICE_UNAVAILABLE']);
        expect(own.body.error?.message).toBe('the database is not available; try again shortly');
        // Through the console entrance: the service's answer, or the gateway's when the registry or the
        // token check (both on a database) cannot answer either.
        expectUnavailable(await viaEntrance(route.path), `${route.path} via the entrance`, [
          'SERVICE_UNAVAILABLE',
          'UPSTREAM_UNAVAILABLE',
        ]);
      }
      expectUnavailable(
        await send(entrance('/api/auth/login'), {
          method: 'POST',
          body: { username: 'root', password: 'root-password-1', client: 'console' },
        }),
        'sign-in',
        ['SERVICE_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE'],
      );
      // The play-agent signs players in through the user service: it passes the outage on as a 503 too.
      expectUnavailable(await playerSignIn(), 'play-agent sign-in', ['UPSTREAM_UNAVAILABLE']);
      // Background work meets the outage too (registration heartbeats, scheduled tasks): it logs and goes on.
      await svc!.waitForLog(/cannot register with config service yet/, 60_000);

      await cluster!.start();

      await waitFor(
        async () => {
          for (const route of ROUTES) {
            if ((await viaEntrance(route.path)).status !== 200) return undefined;
            if ((await direct(route.port, route.path)).status !== 200) return undefined;
          }
          return true;
        },
        60_000,
        250,
      );
      const login = await send(entrance('/api/auth/login'), {
        method: 'POST',
        body: { username: 'root', password: 'root-password-1', client: 'console' },
      });
      expect(login.status).toBe(200);
      expect((await playerSignIn()).status).toBe(200);
      // Nothing was restarted: the same processes run, none died.
      expect(svc!.childPids()).toEqual(pidsBefore);
      for (const pid of pidsBefore) expect(isAlive(pid), `pid ${pid}`).toBe(true);
      expect(svc!.stdout()).not.toContain('process died');
      // No request of any service (the calls between them included) failed with a 500.
      expect(svc!.stdout()).not.toContain('"msg":"request failed"');
      expect(svc!.child.exitCode).toBeNull();
    });
  },
);
