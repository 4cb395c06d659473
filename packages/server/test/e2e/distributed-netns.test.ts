// DISTRIBUTED across machines: each role and each worker node on a machine of its own, the machines being Linux
// network namespaces joined by two bridges (test/support/netns). One deployment serves every case of this file:
//
//   private 10.77.1.0/24: data (PostgreSQL 5432, Redis 6379, a webhook receiver), control, control-b, user-a,
//                         user-b, media-a, media-b, and the private side of edge-a, edge-b, storage, player-a,
//                         player-b
//   public  10.77.2.0/24: the public side of edge-a, edge-b, storage, player-a, player-b, and "public"
//
// The test process sits in the root namespace and reaches the lab only through socat tunnels started inside
// the "public" machine, so every console and player call really comes from the public side. Worker nodes are
// installed by the console's one-line command, run with a PATH holding only what a fresh Debian host has plus
// curl (support/netns/fresh-host.ts). Needs root; skipped (outside CI) without it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type Dispatcher } from 'undici';
import type { ClusterLicenceStatus } from '@svc/contracts';
import {
  generatePublisherKeys,
  publicKeyLine,
  signCode,
  type LeasePayload,
} from '../../src/services/config/licenses/lease.js';
import { signTestLease } from '../support/signed-lease.js';
import { POLICY_REFRESH_MS } from '../../src/services/play-agent/policy-refresher.js';
import { startLabPostgres, startLabRedis, type LabPostgres } from '../support/netns/data-services.js';
import { freshHostPath, type FreshHostPath } from '../support/netns/fresh-host.js';
import { NetLab, type Machine } from '../support/netns/lab.js';
import { runIn, spawnIn, type NsProcess } from '../support/netns/ns-process.js';
import { openTunnel, probeFrom, type Tunnel } from '../support/netns/reach.js';
import { postgresBinDir } from '../support/private-postgres.js';
import { SVC_BUNDLE } from '../support/svc-process.js';
import { waitFor } from '../support/wait.js';

const canRun = process.getuid?.() === 0 && postgresBinDir() !== undefined;
const repoRoot = path.resolve(path.dirname(SVC_BUNDLE), '../../..');
const PRIVATE = '10.77.1';
const PUBLIC = '10.77.2';
const SERVICE_TOKEN = 'svc_st_netns_lab_token_0123456789abcdefghij';
const ADMIN = { username: 'root', password: 'root-password-1' };
const VIEWER = { username: 'viewer', password: 'viewer-password-1' };
/** Authorized, before the edition upgrade's take-over, for the built-in play-agent only. */
const ROUTED = { username: 'routed', password: 'routed-password-1' };
const BUILT_IN = { storage: 'node-local-storage', playAgent: 'node-local-play-agent' } as const;
const EMBY_AUTH = 'Emby Client="Lab", Device="netns", DeviceId="netns-1", Version="1"';

type Json = Record<string, unknown>;

const publisher = generatePublisherKeys();
const scratch = mkdtempSync(path.join(tmpdir(), 'svc-netns-'));
const processes: NsProcess[] = [];
const tunnels: Tunnel[] = [];
let lab: NetLab | undefined;
let postgres: LabPostgres | undefined;
let freshHost: FreshHostPath | undefined;
const startedAt = Date.now();
const timings: Record<string, number> = {};

const m: Record<string, Machine> = {};
const roles: Record<string, NsProcess> = {};
let receiver: NsProcess;
let entrance: { a: Dispatcher; b: Dispatcher };
let players: { a: Dispatcher; b: Dispatcher };
let adminToken = '';
let libraryId = '';
/** Event ids of the deliveries the media instances made, checked again at the end of the file. */
let deliveredEvents: string[] = [];
const received = () =>
  [...receiver.output().matchAll(/delivery \{"event":"([^"]+)"\}/g)].map((match) => match[1]!).sort();

interface Answer {
  status: number;
  body: Json;
  text: string;
}

async function call(
  via: Dispatcher,
  base: string,
  method: string,
  route: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const response = await request(`${base}${route}`, {
    method: method as 'GET',
    dispatcher: via,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    headersTimeout: 60_000,
    bodyTimeout: 120_000,
  });
  const text = await response.body.text();
  let body: Json = {};
  try {
    body = text ? (JSON.parse(text) as Json) : {};
  } catch {
    body = {};
  }
  return { status: response.statusCode, body, text };
}

const edgeUrl = (name: 'a' | 'b') => `http://${PUBLIC}.${name === 'a' ? 15 : 18}:18080`;
const playerUrl = (name: 'a' | 'b') => `http://${PUBLIC}.${name === 'a' ? 17 : 19}:19090`;
const console_ = (edge: 'a' | 'b', method: string, route: string, options: Parameters<typeof call>[4] = {}) =>
  call(entrance[edge], edgeUrl(edge), method, route, options);
const admin = (method: string, route: string, body?: unknown, edge: 'a' | 'b' = 'a') =>
  console_(edge, method, route, { headers: { 'x-admin-token': adminToken }, body });

const lease = (kind: LeasePayload['kind'], edition: LeasePayload['edition']) =>
  signTestLease(publisher.privateKey, { licenseId: 'lic-netns', kind, edition });

/** Starts `svc role <role>` on a machine: every role binds its private address, the edge every address. */
function startRole(
  name: string,
  machine: Machine,
  role: string,
  extra: Record<string, string> = {},
): NsProcess {
  const dataDir = path.join(scratch, `data-${name}`);
  mkdirSync(dataDir, { recursive: true });
  const privateAddress = machine.addresses.private!;
  const svc = spawnIn(machine, name, [process.execPath, SVC_BUNDLE, 'role', role], {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dataDir,
    SVC_LOG_LEVEL: 'info',
    SVC_DATA_DIR: dataDir,
    SVC_SERVICE_TOKEN: SERVICE_TOKEN,
    SVC_DB_MODE: 'external',
    SVC_DATABASE_URL: postgres!.url,
    SVC_REDIS_URL: `redis://${PRIVATE}.2:6379`,
    SVC_CONFIG_BASE_URL: `http://${PRIVATE}.10:18085`,
    SVC_BIND_HOST: privateAddress,
    SVC_ADVERTISE_HOST: privateAddress,
    SVC_LICENSE_PUBLIC_KEY: publicKeyLine(publisher.publicKey),
    ...extra,
  });
  processes.push(svc);
  roles[name] = svc;
  return svc;
}

/** Creates a worker node in the console and runs its one-line install command on its machine. */
async function installWorker(
  machine: Machine,
  record: Json & { nodeId: string; serviceType: string },
  runtime: Record<string, string>,
): Promise<{ code: number | null; output: string; command: string }> {
  const created = await admin('POST', '/api/config/nodes', record);
  expect(created.status, created.text).toBe(201);
  const revealed = await admin('GET', `/api/config/nodes/${record.nodeId}/credentials`);
  expect(revealed.status, revealed.text).toBe(200);
  const shown = (revealed.body.installCommands as { kind: string; ffmpeg: boolean; command: string }[]).find(
    (entry) => entry.kind === 'binary' && !entry.ffmpeg,
  )!;
  const work = path.join(scratch, `work-${record.nodeId}`);
  // Exactly this environment: a fresh host's PATH (no node, no java, no docker, no ffmpeg) and the values
  // an operator may give; nothing of the test process.
  const result = await runIn(
    machine,
    ['bash', '-c', `set -o pipefail; ${shown.command}`],
    {
      PATH: freshHost!.dir,
      HOME: work,
      LANG: 'C',
      SVC_NODE_WORK_DIR: work,
      SVC_NODE_SERVICE_MANAGER: 'none',
      ...runtime,
    },
    600_000,
  );
  return { ...result, command: shown.command };
}

function logOf(nodeId: string): string {
  try {
    return readFileSync(path.join(scratch, `work-${nodeId}`, 'logs', 'node.log'), 'utf8');
  } catch {
    return '';
  }
}

// In CI nothing is skipped: a runner without root or PostgreSQL's server programs fails here.
describe.skipIf(!canRun && process.env.CI !== 'true')(
  'DISTRIBUTED on separate machines (network namespaces)',
  () => {
    beforeAll(async () => {
      let mark = Date.now();
      const lap = (name: string) => {
        timings[name] = Date.now() - mark;
        mark = Date.now();
      };
      // The node binary, built as `npm start` builds it (its prestart step) beside the program, in
      // packages/server/dist/node-binary: the control instances get no SVC_BINARIES_DIR, so the install below
      // shows that a new control plane hands out a binary out of the box. Cached by its inputs (shared with
      // node-install.test.ts).
      execFileSync(
        process.execPath,
        [
          path.join(repoRoot, 'scripts/build-node-binary.mjs'),
          '--cache',
          path.join(tmpdir(), 'svc-node-binary-cache'),
        ],
        { stdio: 'pipe', timeout: 600_000 },
      );
      freshHost = freshHostPath();
      lap('node binary');

      lab = await NetLab.create([
        { name: 'private', subnet: PRIVATE },
        { name: 'public', subnet: PUBLIC },
      ]);
      const machines: [string, number, string[]][] = [
        ['data', 2, ['private']],
        ['control', 10, ['private']],
        ['control-b', 20, ['private']],
        ['user-a', 11, ['private']],
        ['user-b', 12, ['private']],
        ['media-a', 13, ['private']],
        ['media-b', 14, ['private']],
        ['edge-a', 15, ['private', 'public']],
        ['storage', 16, ['private', 'public']],
        ['player-a', 17, ['private', 'public']],
        ['edge-b', 18, ['private', 'public']],
        ['player-b', 19, ['private', 'public']],
        ['public', 100, ['public']],
      ];
      for (const machine of await lab.machines(
        machines.map(([name, host, joins]) => ({ name, host, joins })),
      ))
        m[machine.name] = machine;
      lap('namespaces');

      postgres = await startLabPostgres(m.data!, `${PRIVATE}.2`);
      const redis = await startLabRedis(m.data!, `${PRIVATE}.2`);
      processes.push(redis.process);
      receiver = spawnIn(
        m.data!,
        'webhook receiver',
        [
          process.execPath,
          '-e',
          `require('node:http').createServer((q, r) => { let b = ''; q.on('data', (c) => (b += c));
           q.on('end', () => { console.log('delivery ' + b.replace(/\\s+/g, '')); r.end('ok'); }); })
         .listen(9099, '${PRIVATE}.2', () => console.log('receiver listening'));`,
        ],
        { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      );
      processes.push(receiver);
      await receiver.waitForLog(/receiver listening/);
      lap('postgres and redis');

      // Install order of the runbook: control, user, media, edge. The second instances start once the first
      // ones have migrated their databases.
      await startRole('control', m.control!, 'control').waitForLog(/"msg":"ready"/);
      // A second control instance shares the licence lease with the first (18089); the others point at the first.
      const firsts = [
        startRole('control-b', m['control-b']!, 'control'),
        startRole('user-a', m['user-a']!, 'user', { SVC_LOG_LEVEL: 'debug' }),
        startRole('media-a', m['media-a']!, 'media'),
      ];
      for (const svc of firsts) await svc.waitForLog(/"msg":"ready"/);
      const seconds = [
        startRole('user-b', m['user-b']!, 'user', { SVC_LOG_LEVEL: 'debug' }),
        startRole('media-b', m['media-b']!, 'media'),
        startRole('edge-a', m['edge-a']!, 'edge', { SVC_BIND_HOST: '0.0.0.0' }),
        startRole('edge-b', m['edge-b']!, 'edge', { SVC_BIND_HOST: '0.0.0.0' }),
      ];
      for (const svc of seconds) await svc.waitForLog(/"msg":"ready"/);
      lap('roles');

      const tunnel = async (host: string, port: number) => {
        const opened = await openTunnel(m.public!, host, port);
        tunnels.push(opened);
        return opened.dispatcher;
      };
      entrance = { a: await tunnel(`${PUBLIC}.15`, 18080), b: await tunnel(`${PUBLIC}.18`, 18080) };
      players = { a: await tunnel(`${PUBLIC}.17`, 19090), b: await tunnel(`${PUBLIC}.19`, 19090) };

      // First administrator, licence, edition upgrade: through the public entrance.
      await waitFor(
        async () =>
          (await console_('a', 'GET', '/api/auth/setup/status')).status === 200 ? true : undefined,
        60_000,
      );
      const setup = await console_('a', 'POST', '/api/auth/setup/admin', { body: ADMIN });
      expect(setup.status, setup.text).toBe(201);
      const login = await console_('a', 'POST', '/api/auth/login', { body: { ...ADMIN, client: 'console' } });
      adminToken = String(login.body.adminToken);
      const activated = await admin('POST', '/api/license/activate', {
        code: signCode('code-netns-1', lease('lease', 'STANDALONE'), publisher.privateKey),
      });
      expect(activated.status, activated.text).toBe(200);
      const upgraded = await admin('POST', '/api/admin/licenses/lic-netns/edition', {
        lease: lease('edition-upgrade', 'DISTRIBUTED'),
      });
      expect(upgraded.status, upgraded.text).toBe(200);
      expect((await admin('GET', '/api/config/deployment/capabilities')).body).toMatchObject({
        edition: 'DISTRIBUTED',
      });
      // The built-in records stay, awaiting their install on a target machine (not PENDING forever); a user
      // authorized for the built-in play-agent keeps that authorization through the take-over below.
      const listed = ((await admin('GET', '/api/config/nodes')).body.nodes as Json[]).filter((node) =>
        Object.values(BUILT_IN).includes(String(node.nodeId) as never),
      );
      expect(listed.map((node) => [node.nodeId, node.scope, node.status]).sort()).toEqual([
        [BUILT_IN.playAgent, 'EMBEDDED', 'AWAITING_INSTALL'],
        [BUILT_IN.storage, 'EMBEDDED', 'AWAITING_INSTALL'],
      ]);
      const routed = await admin('POST', '/api/auth/admin/users', ROUTED);
      expect(routed.status, routed.text).toBe(201);
      const access = await admin('PUT', `/api/auth/admin/users/${String(routed.body.id)}/node-access`, {
        mode: 'ALLOW_LIST',
        entries: [{ kind: 'node', id: BUILT_IN.playAgent }],
      });
      expect(access.status, access.text).toBeLessThan(300);
      // Nothing configured: the binary built with the program is the one offered.
      const binary = await admin('GET', '/api/config/binaries/status');
      expect(binary.status, binary.text).toBe(200);
      expect(binary.body).toMatchObject({ provided: true, file: 'svc-node-linux-x64' });
      expect(String(binary.body.message)).toContain('built with this program');
      lap('licence');

      // Worker nodes, each by its one-line command on a fresh host. The storage node keeps its database on the
      // private PostgreSQL; play-agents are reached by players at their public address. The storage node and
      // player-b take over the former built-in records (same ids, new tokens); player-a is a new node.
      const [storage, playerA, playerB] = await Promise.all([
        installWorker(
          m.storage!,
          {
            serviceType: 'svc-control-storage',
            nodeId: BUILT_IN.storage,
            name: 'lab storage',
            expectedHost: `${PRIVATE}.16`,
          },
          { SVC_DB_MODE: 'external', SVC_DATABASE_URL: postgres.url },
        ),
        ...(['a', 'b'] as const).map((name) =>
          installWorker(
            m[`player-${name}`]!,
            {
              serviceType: 'svc-play-agent',
              nodeId: name === 'a' ? 'node-lab-player-a' : BUILT_IN.playAgent,
              name: `lab player ${name}`,
              expectedHost: `${PRIVATE}.${name === 'a' ? 17 : 19}`,
              listenPort: 19090,
              externalAddress: { protocol: 'http', host: `${PUBLIC}.${name === 'a' ? 17 : 19}`, port: 19090 },
            },
            {},
          ),
        ),
      ]);
      for (const installed of [storage, playerA!, playerB!]) {
        expect(installed.code, installed.output).toBe(0);
        expect(installed.command).toMatch(
          /^curl -fsSL http:\/\/10\.77\.1\.10:18085\/api\/config\/nodes\/install\/svc_nt_\S+\/binary \| bash$/,
        );
      }
      for (const nodeId of [BUILT_IN.storage, 'node-lab-player-a', BUILT_IN.playAgent]) {
        await waitFor(
          async () => {
            const node = await admin('GET', `/api/config/nodes/${nodeId}`);
            return (node.body.node as Json | undefined)?.status === 'ONLINE' || node.body.status === 'ONLINE'
              ? true
              : undefined;
          },
          90_000,
          500,
        );
      }
      lap('worker installs');
    }, 900_000);

    afterAll(async () => {
      for (const tunnel of tunnels) await tunnel.close().catch(() => undefined);
      for (const svc of processes) await svc.stop(5_000).catch(() => undefined);
      await lab?.destroy();
      await postgres?.remove();
      if (freshHost) rmSync(freshHost.dir, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
      const total = Math.round((Date.now() - startedAt) / 1000);
      console.log(
        `distributed-netns: ${total} s in all (load average ${loadavg()
          .map((value) => value.toFixed(2))
          .join(' ')}); ` +
          Object.entries(timings)
            .map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`)
            .join(', '),
      );
    }, 120_000);

    it('the public side reaches 18080 and the node ports only', async () => {
      const privatePorts = [18082, 18083, 18085, 18086, 18088, 18089];
      const targets = [
        // Every private machine by its private address: the public network has no route there.
        ...[
          ...['2:5432', '2:6379', '10:18085', '10:18088', '10:18089', '20:18085', '20:18089'],
          ...['11:18082', '13:18083'],
        ].map((t) => `${PRIVATE}.${t}`),
        // The machines with a public side, by their public address.
        ...[15, 18].flatMap((host) => [18080, ...privatePorts].map((port) => `${PUBLIC}.${host}:${port}`)),
        ...[16, 17, 19].flatMap((host) =>
          [18080, 18084, 19090, ...privatePorts, 5432, 6379].map((port) => `${PUBLIC}.${host}:${port}`),
        ),
      ];
      const reach = await probeFrom(m.public!, targets);
      const open = Object.entries(reach)
        .filter(([, state]) => state === 'open')
        .map(([target]) => target)
        .sort();
      expect(open).toEqual(
        [
          `${PUBLIC}.15:18080`,
          `${PUBLIC}.16:18084`,
          `${PUBLIC}.17:19090`,
          `${PUBLIC}.18:18080`,
          `${PUBLIC}.19:19090`,
        ].sort(),
      );
      for (const target of targets.filter((t) => t.startsWith(`${PRIVATE}.`)))
        expect(reach[target], target).toBe('unreachable');
      // The same ports do answer on the private side (so the probe above could have seen them).
      const inside = await probeFrom(m.control!, [
        `${PRIVATE}.2:5432`,
        `${PRIVATE}.2:6379`,
        `${PRIVATE}.11:18082`,
        `${PRIVATE}.12:18082`,
        `${PRIVATE}.13:18083`,
        `${PRIVATE}.10:18085`,
        `${PRIVATE}.10:18089`,
        `${PRIVATE}.20:18089`,
      ]);
      expect(Object.values(inside)).toEqual(Array(8).fill('open'));
    });

    it('the former built-in nodes run on worker machines under their ids; the authorization naming one holds', async () => {
      const nodes = (await admin('GET', '/api/config/nodes')).body.nodes as Json[];
      for (const [nodeId, serviceType] of [
        [BUILT_IN.storage, 'svc-control-storage'],
        [BUILT_IN.playAgent, 'svc-play-agent'],
      ] as const) {
        const records = nodes.filter((node) => node.nodeId === nodeId);
        expect(records).toHaveLength(1);
        expect(records[0]).toMatchObject({ serviceType, scope: 'EXTERNAL', status: 'ONLINE' });
      }
      // Registered from their machines: the registry holds the worker addresses under the original ids.
      expect(logOf(BUILT_IN.playAgent)).toContain('"msg":"ready"');
      expect(logOf(BUILT_IN.storage)).toContain('"msg":"ready"');
      // The user authorized for node-local-play-agent before the take-over is offered that node, now at
      // player-b's public address, and nothing else.
      const portal = await console_('a', 'POST', '/api/auth/login', {
        body: { ...ROUTED, client: 'portal' },
      });
      expect(portal.status, portal.text).toBe(200);
      const routes = await console_('a', 'GET', '/api/config/me/playback-routes', {
        headers: { authorization: `Bearer ${String(portal.body.accessToken)}` },
      });
      expect(routes.status, routes.text).toBe(200);
      expect((routes.body.routes as Json[]).map((route) => [route.id, route.url])).toEqual([
        [BUILT_IN.playAgent, playerUrl('b')],
      ]);
    });

    it('two user instances behind two edges share the login lock through Redis', async () => {
      const created = await admin('POST', '/api/auth/admin/users', {
        username: 'locked',
        password: 'locked-password-1',
      });
      expect(created.status, created.text).toBe(201);
      const loginsIn = (svc: NsProcess) => (svc.output().match(/"url":"\/api\/auth\/login"/g) ?? []).length;
      const before = { a: loginsIn(roles['user-a']!), b: loginsIn(roles['user-b']!) };
      const attempt = (edge: 'a' | 'b', password: string) =>
        console_(edge, 'POST', '/api/auth/login', {
          body: { username: 'locked', password, client: 'portal' },
        });
      for (let failure = 0; failure < 5; failure += 1) {
        expect((await attempt(failure % 2 === 0 ? 'a' : 'b', 'wrong-password')).status).toBe(401);
      }
      // Now locked on every instance, through either edge, even with the right password.
      for (const edge of ['a', 'b', 'a', 'b'] as const) {
        const locked = await attempt(edge, 'locked-password-1');
        expect(locked.status, locked.text).toBe(429);
        expect(locked.body).toMatchObject({ error: { code: 'LOGIN_LOCKED' } });
      }
      // Both user instances answered some of these sign-ins.
      expect(loginsIn(roles['user-a']!) - before.a).toBeGreaterThan(0);
      expect(loginsIn(roles['user-b']!) - before.b).toBeGreaterThan(0);
    });

    it('the MCP switch reaches both edges within about 3 s', async () => {
      await admin('POST', '/api/auth/admin/users', { username: 'mcp.user', password: 'mcp-user-password-1' });
      const portal = await console_('a', 'POST', '/api/auth/login', {
        body: { username: 'root', password: ADMIN.password, client: 'portal' },
      });
      const token = String(portal.body.accessToken);
      const initialize = async (edge: 'a' | 'b') =>
        (
          await console_(edge, 'POST', '/mcp', {
            headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
            body: {
              jsonrpc: '2.0',
              id: 1,
              method: 'initialize',
              params: {
                protocolVersion: '2025-11-25',
                capabilities: {},
                clientInfo: { name: 'netns', version: '1' },
              },
            },
          })
        ).status;
      const switchTo = async (enabled: boolean) => {
        const saved = await admin('PUT', '/api/config/system-settings/mcp', { enabled });
        expect(saved.status, saved.text).toBe(200);
        const since = Date.now();
        const wanted = enabled ? 200 : 404;
        const took = await Promise.all(
          (['a', 'b'] as const).map((edge) =>
            waitFor(
              async () => ((await initialize(edge)) === wanted ? Date.now() - since : undefined),
              15_000,
              100,
            ),
          ),
        );
        timings[`mcp ${enabled ? 'on' : 'off'} (slowest edge)`] = Math.max(...took);
        return Math.max(...took);
      };
      expect(await switchTo(true)).toBeLessThanOrEqual(3_500);
      expect(await switchTo(false)).toBeLessThanOrEqual(3_500);
    });

    it(
      'a playback through the edge and a worker play-agent is recorded once; webhooks are delivered once by two media instances',
      { timeout: 600_000 },
      async () => {
        // Outbound webhook to the receiver on the private network, for every library.
        const hook = await admin('POST', '/api/media/outbound-webhooks', {
          name: 'lab receiver',
          url: `http://${PRIVATE}.2:9099/hook`,
          allowPrivateNetwork: true,
          body: '{"event":"{{event.id}}"}',
        });
        expect(hook.status, hook.text).toBe(201);

        // A movie on the storage machine's disk, in a library on the worker storage node.
        const media = path.join(scratch, 'media');
        mkdirSync(path.join(media, 'Movies', 'Heat (1995)'), { recursive: true });
        execFileSync('ffmpeg', [
          ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=3:size=160x120:rate=10'],
          ...['-f', 'lavfi', '-i', 'sine=duration=3', '-shortest', '-movflags', '+faststart'],
          path.join(media, 'Movies', 'Heat (1995)', 'Heat (1995).mp4'),
        ]);
        const mount = await admin('POST', '/api/storage/mounts', {
          name: 'lab',
          provider: 'local',
          config: { root: media },
        });
        expect([200, 201], mount.text).toContain(mount.status);
        const library = await admin('POST', '/api/media/libraries', {
          name: 'Movies',
          type: 'movies',
          sources: [{ nodeId: BUILT_IN.storage, mountId: String(mount.body.id), path: '/Movies' }],
        });
        expect(library.status, library.text).toBe(201);
        libraryId = String(library.body.id);
        await waitFor(
          async () => {
            const state = ((await admin('GET', `/api/media/libraries/${libraryId}/scan`)).body.scan ??
              {}) as Json;
            if (state.state === 'failed') throw new Error(`scan failed: ${JSON.stringify(state)}`);
            return state.state === 'succeeded' ? true : undefined;
          },
          180_000,
          500,
        );

        // The portal (through the edge) hands out the play-agents' public addresses.
        expect((await admin('POST', '/api/auth/admin/users', VIEWER)).status).toBe(201);
        const portal = await console_('b', 'POST', '/api/auth/login', {
          body: { ...VIEWER, client: 'portal' },
        });
        const routes = await console_('b', 'GET', '/api/config/me/playback-routes', {
          headers: { authorization: `Bearer ${String(portal.body.accessToken)}` },
        });
        expect(routes.status, routes.text).toBe(200);
        // The worker play-agents by their external (public) addresses.
        const byId = Object.fromEntries(
          (routes.body.routes as Json[]).map((route): [string, unknown] => [String(route.id), route.url]),
        );
        expect(byId).toMatchObject({
          'node-lab-player-a': playerUrl('a'),
          [BUILT_IN.playAgent]: playerUrl('b'),
        });

        // An Emby-compatible client plays the movie through player-a.
        const emby = (method: string, route: string, token?: string, body?: unknown) =>
          call(players.a, playerUrl('a'), method, route, {
            headers: { 'x-emby-authorization': EMBY_AUTH, ...(token ? { 'x-emby-token': token } : {}) },
            body,
          });
        const signIn = await emby('POST', '/emby/Users/AuthenticateByName', undefined, {
          Username: VIEWER.username,
          Pw: VIEWER.password,
        });
        expect(signIn.status, signIn.text).toBe(200);
        const token = String(signIn.body.AccessToken);
        const userId = String((signIn.body.User as Json).Id);
        const items = await waitFor(async () => {
          const list = await emby(
            'GET',
            `/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Movie&Fields=MediaSources`,
            token,
          );
          const found = (list.body.Items as Json[] | undefined) ?? [];
          return found.length > 0 ? found : undefined;
        }, 60_000);
        const movie = items[0]!;
        const size = Number(((movie.MediaSources as Json[])[0] as Json).Size);
        const session = { ItemId: movie.Id, PlaySessionId: 'netns-play-1', PositionTicks: 0 };
        expect((await emby('POST', '/Sessions/Playing', token, session)).status).toBeLessThan(300);
        const stream = await request(
          `${playerUrl('a')}/Videos/${String(movie.Id)}/stream?static=true&api_key=${token}`,
          {
            dispatcher: players.a,
          },
        );
        expect(stream.statusCode).toBe(200);
        expect((await stream.body.arrayBuffer()).byteLength).toBe(size);
        expect(
          (await emby('POST', '/Sessions/Playing/Stopped', token, { ...session, PositionTicks: 30_000_000 }))
            .status,
        ).toBeLessThan(300);

        // The report, read through the other edge: one play of the movie.
        const played = await waitFor(
          async () => {
            const top = await admin(
              'GET',
              '/api/auth/admin/reports/top-media?preset=last24h&sort=playCount',
              undefined,
              'b',
            );
            const rows = (top.body.items as Json[] | undefined) ?? [];
            return rows.length > 0 ? rows : undefined;
          },
          90_000,
          500,
        );
        expect(played).toHaveLength(1);
        expect(played[0]).toMatchObject({ playCount: 1 });

        // The scan's events went out once each, though two media instances run the delivery task every 5 s.
        const deliveries = await waitFor(
          async () => {
            const list = await admin('GET', '/api/media/outbound-webhooks/deliveries?limit=50');
            const rows = (list.body.deliveries as Json[] | undefined) ?? [];
            return rows.length > 0 && rows.every((row) => row.status === 'SUCCEEDED') ? rows : undefined;
          },
          60_000,
          500,
        );
        const eventIds = deliveries.map((row) => String(row.eventId)).sort();
        expect(deliveries.every((row) => row.attempts === 1)).toBe(true);
        expect(received()).toEqual(eventIds);
        expect(new Set(received()).size).toBe(received().length);
        deliveredEvents = eventIds;
      },
    );

    it(
      'the play-agent policy reaches both worker play-agents at their next refresh (about 30 s)',
      { timeout: 300_000 },
      async () => {
        const viewer = async (name: 'a' | 'b') => {
          const signIn = await call(
            players[name],
            playerUrl(name),
            'POST',
            '/emby/Users/AuthenticateByName',
            {
              headers: { 'x-emby-authorization': EMBY_AUTH },
              body: { Username: VIEWER.username, Pw: VIEWER.password },
            },
          );
          expect(signIn.status, signIn.text).toBe(200);
          return { token: String(signIn.body.AccessToken), userId: String((signIn.body.User as Json).Id) };
        };
        const sessions = { a: await viewer('a'), b: await viewer('b') };
        const names = async (name: 'a' | 'b') => {
          const views = await call(
            players[name],
            playerUrl(name),
            'GET',
            `/Users/${sessions[name].userId}/Views`,
            {
              headers: { 'x-emby-token': sessions[name].token },
            },
          );
          expect(views.status, views.text).toBe(200);
          return (views.body.Items as Json[]).map((item) => String(item.Name));
        };
        let renames = 0;
        /** Views read on each agent, the library renamed, views read again: a cached answer shows the old name. */
        const cachedOn = async (): Promise<Record<'a' | 'b', boolean>> => {
          await Promise.all([names('a'), names('b')]);
          renames += 1;
          const name = `Movies ${renames}`;
          const renamed = await admin('PATCH', `/api/media/libraries/${libraryId}`, { name });
          expect(renamed.status, renamed.text).toBe(200);
          return { a: !(await names('a')).includes(name), b: !(await names('b')).includes(name) };
        };
        expect(await cachedOn()).toEqual({ a: false, b: false });
        const saved = await admin('PUT', '/api/config/play-agent/policy', {
          protocol: 'proto_a',
          responseCache: true,
          metadataCacheTtlSeconds: 3600,
          driveARedirect: false,
        });
        expect(saved.status, saved.text).toBe(200);
        const since = Date.now();
        const seen: Partial<Record<'a' | 'b', number>> = {};
        await waitFor(
          async () => {
            const state = await cachedOn();
            for (const name of ['a', 'b'] as const)
              if (state[name] && seen[name] === undefined) seen[name] = Date.now() - since;
            return seen.a !== undefined && seen.b !== undefined ? true : undefined;
          },
          POLICY_REFRESH_MS * 1.1 + 30_000,
          500,
        );
        timings['policy (slowest play-agent)'] = Math.max(seen.a!, seen.b!);
        // Within one refresh interval (+10 % jitter) and the time one check takes on this loaded machine.
        expect(Math.max(seen.a!, seen.b!)).toBeLessThanOrEqual(POLICY_REFRESH_MS * 1.1 + 5_000);
        expect(logOf('node-lab-player-a')).toContain('"msg":"ready"');
        // A minute after the deliveries, with both media instances running the 5 s delivery task all along:
        // still one request per event.
        expect(deliveredEvents.length).toBeGreaterThan(0);
        expect(received()).toEqual(deliveredEvents);
      },
    );

    // Last in the file: the first control instance, which every other role points at, is killed here.
    it(
      'the licence lease of two control instances: a killed holder is replaced within the lease time (18089)',
      { timeout: 300_000 },
      async () => {
        const controls = { a: `${PRIVATE}.10`, b: `${PRIVATE}.20` } as const;
        // 18089 from another private machine (the public side has no route there, first case of this file).
        const peerTunnel = async (name: 'a' | 'b') => {
          const opened = await openTunnel(m.data!, controls[name], 18089);
          tunnels.push(opened);
          return opened.dispatcher;
        };
        const peers = { a: await peerTunnel('a'), b: await peerTunnel('b') };
        const cluster = async (name: 'a' | 'b'): Promise<ClusterLicenceStatus> => {
          const answer = await call(
            peers[name],
            `http://${controls[name]}:18089`,
            'GET',
            '/api/config/internal/cluster/licence',
            { headers: { 'x-svc-service-token': SERVICE_TOKEN } },
          );
          expect(answer.status, answer.text).toBe(200);
          return answer.body as unknown as ClusterLicenceStatus;
        };
        const idOf = (name: 'a' | 'b') => `control@http://${controls[name]}:18089`;
        /** Both instances' answers once they agree on the holder, the licence it verified and two live members. */
        const agreed = (holder: 'a' | 'b', term?: number) =>
          waitFor(
            async () => {
              const both = { a: await cluster('a'), b: await cluster('b') };
              const settled = (['a', 'b'] as const).every((name) => {
                const view = both[name];
                return (
                  view.lease?.holder === idOf(holder) &&
                  (term === undefined || view.lease.term === term) &&
                  view.licence?.checkedBy === idOf(holder) &&
                  view.licence.term === view.lease.term &&
                  view.licence.edition === 'DISTRIBUTED' &&
                  view.members.filter((member) => member.live).length === 2
                );
              });
              return settled ? both : undefined;
            },
            120_000,
            500,
          );
        /**
         * What both instances must answer alike. The two reads are not simultaneous, so what every beat rewrites
         * (the renewal and expiry times, the licence check time) is left out.
         */
        const shared = (view: ClusterLicenceStatus) => {
          const { renewedAt: _renewed, expiresAt: _expires, ...lease } = view.lease ?? {};
          const { checkedAt: _checked, ...licence } = view.licence ?? {};
          return { lease, licence, leaseSeconds: view.leaseSeconds };
        };
        /** The shared licence facts equal the console's licence status (read through an edge). */
        const matchesConsole = async (view: ClusterLicenceStatus, edge: 'a' | 'b') => {
          const shown = await admin('GET', '/api/license/status', undefined, edge);
          expect(shown.status, shown.text).toBe(200);
          expect(view.licence).toMatchObject({
            state: shown.body.status,
            edition: shown.body.edition,
            maxStorageNodes: shown.body.maxStorageNodes,
            maxPlayAgentNodes: shown.body.maxPlayAgentNodes,
            validUntil: shown.body.validUntil,
            graceUntil: shown.body.graceUntil,
          });
          expect(view.licence).toMatchObject({ state: 'ACTIVE', edition: 'DISTRIBUTED', maxStorageNodes: 3 });
        };

        // The first instance started first and holds the lease; both answer the same lease and licence.
        const before = await agreed('a');
        expect(before.a.isHolder).toBe(true);
        expect(before.b.isHolder).toBe(false);
        expect(shared(before.b)).toEqual(shared(before.a));
        await matchesConsole(before.b, 'b');

        // kill -9: no more beats, nothing given up; the lease only runs out.
        const holder = roles.control!;
        holder.child.kill('SIGKILL');
        expect((await holder.exited).signal).toBe('SIGKILL');
        const last = (await cluster('b')).lease!;
        expect(last.holder).toBe(idOf('a'));
        const leaseMs = before.b.leaseSeconds * 1000;
        const beatMs = Math.max(500, Math.floor(leaseMs / 3));
        const taken = await waitFor(
          async () => {
            const view = await cluster('b');
            return view.isHolder ? view : undefined;
          },
          leaseMs + beatMs + 60_000,
          250,
        );
        expect(taken.lease).toMatchObject({ holder: idOf('b'), term: last.term + 1 });
        // Not before the dead holder's last renewal expired (database clock), and within one beat after it; on this
        // loaded machine a timer may run a few seconds late.
        const takenAt = Date.parse(taken.lease!.acquiredAt);
        timings['lease takeover after the last renewal'] = takenAt - Date.parse(last.renewedAt);
        expect(takenAt).toBeGreaterThanOrEqual(Date.parse(last.expiresAt));
        expect(takenAt - Date.parse(last.renewedAt)).toBeLessThanOrEqual(leaseMs + beatMs + 10_000);
        // The new holder re-verifies the licence under its own term; the dead one stops being a live member.
        const alone = await waitFor(
          async () => {
            const view = await cluster('b');
            const deadLive = view.members.find((member) => member.instanceId === idOf('a'))?.live;
            return view.licence?.checkedBy === idOf('b') && deadLive === false ? view : undefined;
          },
          leaseMs + 30_000,
          250,
        );
        expect(alone.licence).toMatchObject({ term: last.term + 1, state: 'ACTIVE', edition: 'DISTRIBUTED' });

        // The killed machine comes back: it joins as a member and leaves the lease with the new holder.
        await startRole('control', m.control!, 'control').waitForLog(/"msg":"ready"/);
        const after = await agreed('b', last.term + 1);
        expect(after.a.isHolder).toBe(false);
        expect(after.b.isHolder).toBe(true);
        expect(shared(after.a)).toEqual(shared(after.b));
        await waitFor(
          async () => ((await admin('GET', '/api/license/status')).status === 200 ? true : undefined),
          60_000,
          500,
        );
        await matchesConsole(after.a, 'a');
      },
    );
  },
);
