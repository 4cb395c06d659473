import { request } from 'undici';
import { loadTest } from './load.js';
import { createConfigComponent } from '../packages/server/src/services/config/config.component.js';
import { createUserComponent } from '../packages/server/src/services/user/user.component.js';
import { createFrontendComponent } from '../packages/server/src/services/frontend/frontend.component.js';
import { gatewayFactory } from '../packages/server/src/services/gateway/gateway.component.js';
import { GATEWAY_ROUTE_TABLE } from '../packages/server/src/services/gateway/route-table.js';
import type { ComponentFactory } from '../packages/server/src/runtime/component.js';
import { startTestInstall, waitFor } from '../packages/server/test/support/runtime.js';

const CONNECTIONS = 32;

/** The same no-op handler twice on the user service: once public, once behind the account rule. */
const withNoopRoutes: ComponentFactory = async (context) => {
  const component = await createUserComponent(context);
  component.app.get(
    '/api/auth/bench/open',
    { config: { auth: { gateway: { kind: 'public' } }, endpoint: 'bench.open' } },
    async () => ({ ok: true }),
  );
  component.app.get(
    '/api/auth/bench/closed',
    { config: { auth: { gateway: { kind: 'account' } }, endpoint: 'bench.closed' } },
    async () => ({
      ok: true,
    }),
  );
  return component;
};

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function benchAuth(): Promise<void> {
  const install = await startTestInstall(
    [
      createConfigComponent,
      withNoopRoutes,
      gatewayFactory([
        ...GATEWAY_ROUTE_TABLE,
        { methods: ['GET'], path: '/api/auth/bench/open', rule: { kind: 'public' } },
        { methods: ['GET'], path: '/api/auth/bench/closed', rule: { kind: 'account' } },
      ]),
      createFrontendComponent,
    ],
    { SVC_DB_MODE: 'bundled' },
  );
  try {
    const entrance = install.url('frontend');
    await waitFor(async () => {
      const response = await request(`${entrance}/api/auth/bench/open`);
      await response.body.dump();
      return response.statusCode === 200 ? true : undefined;
    });
    const password = 'bench-password-0123';
    const setup = await request(`${entrance}/api/auth/setup/admin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password }),
    });
    if (setup.statusCode >= 300)
      throw new Error(`setup failed: ${setup.statusCode} ${await setup.body.text()}`);
    await setup.body.dump();

    const latencies: number[] = [];
    let token = '';
    for (let i = 0; i < 30; i++) {
      const began = performance.now();
      const login = await request(`${entrance}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'bench', password, client: 'console' }),
      });
      const body = (await login.body.json()) as { accessToken?: string };
      latencies.push(performance.now() - began);
      if (login.statusCode !== 200 || !body.accessToken) throw new Error(`login failed: ${login.statusCode}`);
      token = body.accessToken;
    }

    // Alternate the two measurements and keep each one's best run, so drift on a shared machine
    // does not favour whichever ran first.
    const best = (a: Awaited<ReturnType<typeof loadTest>>, b: Awaited<ReturnType<typeof loadTest>>) =>
      a.rps >= b.rps ? a : b;
    const measureOpen = () => loadTest(`${entrance}/api/auth/bench/open`, { connections: CONNECTIONS });
    const measureClosed = () =>
      loadTest(`${entrance}/api/auth/bench/closed`, {
        connections: CONNECTIONS,
        headers: { authorization: `Bearer ${token}` },
      });
    let open = await measureOpen();
    let closed = await measureClosed();
    open = best(open, await measureOpen());
    closed = best(closed, await measureClosed());
    console.log('auth (frontend → gateway → user service, embedded database, this machine)');
    console.log(
      `  sign-in latency over 30 sign-ins: p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms (scrypt N=2^15 dominates)`,
    );
    console.log(
      `  no-op route without auth (reference): ${open.rps.toFixed(0)} requests/s, p50 ${open.p50Ms.toFixed(2)} ms, p99 ${open.p99Ms.toFixed(2)} ms (${CONNECTIONS} connections, separate load process)`,
    );
    console.log(
      `  same no-op route with a bearer token:  ${closed.rps.toFixed(0)} requests/s, p50 ${closed.p50Ms.toFixed(2)} ms, p99 ${closed.p99Ms.toFixed(2)} ms`,
    );
    console.log(
      `  cost of the token check: ${((1 / closed.rps - 1 / open.rps) * 1e6).toFixed(1)} µs of server time per request; throughput ratio ${(closed.rps / open.rps).toFixed(2)}`,
    );
  } finally {
    await install.stop();
  }
}
