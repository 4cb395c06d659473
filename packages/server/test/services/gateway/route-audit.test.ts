import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '../../../src/platform/http/create-server.js';
import {
  requiresServiceToken,
  type DeclaredRoute,
  type GatewayRule,
  type RouteAuth,
} from '../../../src/platform/http/route-auth.js';
import { GATEWAY_ROUTE_TABLE } from '../../../src/services/gateway/route-table.js';
import { loadRole } from '../../../src/runtime/roles.js';
import { startTestInstall, type TestInstall } from '../../support/runtime.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');

/** The public routes documented in docs/auth.md (lines such as "- `GET /api/auth/branding`"). */
function documentedPublicRoutes(): Set<string> {
  const doc = readFileSync(path.join(root, 'docs/auth.md'), 'utf8');
  const section = doc.split(/^### Public routes$/m)[1]?.split(/^#/m)[0] ?? '';
  return new Set([...section.matchAll(/^- `([A-Z]+ \/\S+)`/gm)].map((match) => match[1]!));
}

/** The play-agent routes open before sign-in, documented in docs/auth.md under "Anonymous playback routes". */
function documentedAnonymousPlayerRoutes(): Set<string> {
  const doc = readFileSync(path.join(root, 'docs/auth.md'), 'utf8');
  const section = doc.split(/^### Anonymous playback routes$/m)[1]?.split(/^#/m)[0] ?? '';
  return new Set([...section.matchAll(/^- `([A-Z]+ \/\S+)`/gm)].map((match) => match[1]!));
}

const sameRule = (a: GatewayRule, b: GatewayRule) => JSON.stringify(a) === JSON.stringify(b);
const describeAuth = (auth: RouteAuth | undefined) => (auth ? JSON.stringify(auth) : 'NONE');

describe('route audit: every route of every service declares who may call it', () => {
  let install: TestInstall;
  let routes: (DeclaredRoute & { component: string })[];

  beforeAll(async () => {
    const factories = [
      ...(await loadRole('standalone-control')),
      ...(await loadRole('storage')),
      ...(await loadRole('play-agent')),
    ];
    install = await startTestInstall(factories, { SVC_DB_MODE: 'bundled' });
    // HEAD routes are Fastify's automatic twins of GET routes and share their rule.
    routes = install.running.components.flatMap((component) =>
      routesOf(component.app)
        .filter((route) => route.method !== 'HEAD')
        .map((route) => ({ ...route, component: component.name })),
    );
    const listing = routes
      .map(
        (route) =>
          `${route.component.padEnd(10)} ${route.method.padEnd(6)} ${route.url.padEnd(60)} ${describeAuth(route.auth)}`,
      )
      .join('\n');
    mkdirSync(path.join(root, 'test-results'), { recursive: true });
    writeFileSync(path.join(root, 'test-results/route-audit.txt'), `${listing}\n`);
  });

  afterAll(async () => {
    await install?.stop();
  });

  it('finds routes on every component', () => {
    const components = new Set(routes.map((route) => route.component));
    expect([...components].sort()).toEqual([
      'config',
      'frontend',
      'gateway',
      'internal',
      'media',
      'play-agent',
      'storage',
      'user',
    ]);
  });

  it('has a rule on every route', () => {
    const missing = routes
      .filter((route) => route.auth === undefined)
      .map((r) => `${r.component} ${r.method} ${r.url}`);
    expect(missing).toEqual([]);
  });

  it('keeps entrance and loopback rules to the components they belong to', () => {
    for (const route of routes) {
      if (route.auth && 'direct' in route.auth && route.auth.direct === 'entrance') {
        expect(['frontend', 'gateway'], `${route.method} ${route.url}`).toContain(route.component);
      }
      if (route.auth && 'direct' in route.auth && route.auth.direct === 'loopback') {
        expect(route.component, `${route.method} ${route.url}`).toBe('internal');
      }
    }
  });

  it('opens only health, entrance, player and own-credential routes to callers without the service token', () => {
    const open = routes.filter((route) => route.auth && !requiresServiceToken(route.auth));
    for (const route of open) {
      const direct = route.auth && 'direct' in route.auth ? route.auth.direct : 'none';
      expect(['health', 'entrance', 'player', 'own-credential'], `${route.method} ${route.url}`).toContain(
        direct,
      );
    }
  });

  it('refuses every maintenance route of the internal port to a loopback caller without the service token', async () => {
    const maintenance = routes.filter((route) => route.component === 'internal' && route.url !== '/health');
    expect(maintenance.length).toBeGreaterThan(0);
    for (const route of maintenance) {
      const url = `${install.url('internal')}${route.url.replace(':name', 'registry.prune')}`;
      const answer = await request(url, { method: route.method as 'GET' });
      expect(answer.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(await answer.body.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    }
    const health = await request(`${install.url('internal')}/health`);
    await health.body.dump();
    expect(health.statusCode).toBe(200);
  });

  it("keeps the players' routes on the play-agent, and nothing else there", () => {
    for (const route of routes) {
      const player = route.auth !== undefined && 'direct' in route.auth && route.auth.direct === 'player';
      if (player) expect(route.component, `${route.method} ${route.url}`).toBe('play-agent');
      if (route.component === 'play-agent' && !player) {
        // The play-agent faces the internet: only its health route besides the client protocol, and the
        // control plane's calls (lifecycle, startup probe below /api/node/, the cache below
        // /api/play-agent/internal/): service token only.
        const controlPlane =
          route.url.startsWith('/api/node/') || route.url.startsWith('/api/play-agent/internal/');
        if (controlPlane) {
          expect(route.auth, `${route.method} ${route.url}`).toEqual({ service: true });
        } else {
          expect(route.auth, `${route.method} ${route.url}`).toEqual({ direct: 'health' });
        }
      }
    }
  });

  it('documents every anonymous playback route in docs/auth.md, and nothing else as anonymous', () => {
    const anonymous = routes
      .filter(
        (route) =>
          route.auth &&
          'direct' in route.auth &&
          route.auth.direct === 'player' &&
          route.auth.access === 'anonymous',
      )
      .map((route) => `${route.method} ${route.url}`);
    const documented = documentedAnonymousPlayerRoutes();
    expect(anonymous.filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !anonymous.includes(route))).toEqual([]);
  });

  it('has a gateway table entry with the same rule for every route the gateway serves', () => {
    const problems: string[] = [];
    for (const route of routes) {
      if (!route.auth || !('gateway' in route.auth)) continue;
      const entry = GATEWAY_ROUTE_TABLE.find(
        (e) => e.path === route.url && e.methods.includes(route.method as 'GET'),
      );
      const wildcard = GATEWAY_ROUTE_TABLE.find(
        (e) =>
          e.path.endsWith('*') &&
          route.url.startsWith(e.path.slice(0, -1)) &&
          e.methods.includes(route.method as 'GET'),
      );
      const found = entry ?? wildcard;
      if (!found) problems.push(`${route.method} ${route.url}: not in the gateway table`);
      else if (!sameRule(found.rule, route.auth.gateway)) {
        problems.push(
          `${route.method} ${route.url}: service says ${JSON.stringify(route.auth.gateway)}, gateway ${JSON.stringify(found.rule)}`,
        );
      }
    }
    expect(problems).toEqual([]);
  });

  it('routes every gateway table entry to a service route', () => {
    const problems: string[] = [];
    for (const entry of GATEWAY_ROUTE_TABLE) {
      if (entry.path.endsWith('*')) continue;
      for (const method of entry.methods) {
        const route = routes.find(
          (r) => r.url === entry.path && r.method === method && r.component !== 'gateway',
        );
        if (!route) problems.push(`${method} ${entry.path}: no service route`);
        else if (
          entry.rule.kind === 'node-token' &&
          route.auth &&
          'direct' in route.auth &&
          route.auth.direct === 'own-credential' &&
          route.auth.credential === 'node-token'
        ) {
          // Install scripts and binaries: reached directly by nodes and through the console entrance alike.
        } else if (route.auth && 'direct' in route.auth && route.auth.direct === 'health') {
          if (entry.rule.kind !== 'public')
            problems.push(`${method} ${entry.path}: a health route must be public`);
        } else if (!route.auth || !('gateway' in route.auth)) {
          problems.push(`${method} ${entry.path}: the service route is not declared for the gateway`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('documents every public route in docs/auth.md, and nothing else as public', () => {
    const documented = documentedPublicRoutes();
    const publicEntries = GATEWAY_ROUTE_TABLE.filter((entry) => entry.rule.kind === 'public').flatMap(
      (entry) => entry.methods.map((method) => `${method} ${entry.path}`),
    );
    expect(publicEntries.filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !publicEntries.includes(route))).toEqual([]);
  });
});
