// The one-line install of worker nodes, end to end on this machine: a control plane (the config service in
// this process) with a play-agent and a storage node record; the node binary built by
// scripts/build-node-binary.mjs (cached under the temp folder, keyed by its inputs) in SVC_BINARIES_DIR;
// `curl -fsSL <config>/api/config/nodes/install/<token>/binary | bash` into a temporary work directory (no
// systemd here: the node runs as a background process); the node registers with its registry token and
// turns ONLINE; upgrade-binary to a newer build passes and deletes the backup; an upgrade to a build that
// fails its health check rolls back by itself; uninstall stops the node and deletes the work directory. The
// play-agent is also upgraded from the control plane (POST /api/config/nodes/:id/upgrade) and uninstalled by
// deleting its record with sendUninstall=true: the node runs its own scripts, detached.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { dropExternalDatabase } from '../../src/platform/db/index.js';
import { configComponentFactory, type ConfigParts } from '../../src/services/config/config.component.js';
import { encodeIdentity } from '../../src/platform/http/route-auth.js';
import {
  generatePublisherKeys,
  publicKeyLine,
  signCode,
  type LeasePayload,
} from '../../src/services/config/licenses/lease.js';
import { freePorts } from '../support/ports.js';
import { signTestLease } from '../support/signed-lease.js';
import { startTestInstall, waitFor, type TestInstall } from '../support/runtime.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const BINARY = 'svc-node-linux-x64';
const OLD = '0.1.0-e2e.1';
const NEW = '0.1.0-e2e.2';
const BROKEN = '0.1.0-e2e.broken';

const scratch = mkdtempSync(path.join(tmpdir(), 'svc-node-install-'));
const binariesDir = path.join(scratch, 'binaries');
/** Every pid a node's pid file ever named: killed at the end whatever happened. */
const pids = new Set<number>();
let install: TestInstall | undefined;
let parts: ConfigParts;
const externalDatabases: { url: string; name: string }[] = [];
const publisher = generatePublisherKeys();

/** An administrator's call to the config service, as the gateway forwards it. */
async function admin(
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await request(`${install!.url('config')}${route}`, {
    method: method as 'POST',
    headers: {
      'x-svc-service-token': install!.context.serviceToken,
      'x-svc-identity': encodeIdentity({
        userId: '00000000-0000-4000-8000-000000000001',
        username: 'root',
        role: 'admin',
        permissions: [],
        tokenKind: 'admin',
        tokenId: 'e2e',
        clientIp: '127.0.0.1',
      }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const lease = (kind: LeasePayload['kind'], edition: LeasePayload['edition'], licenseId: string) =>
  signTestLease(publisher.privateKey, { licenseId, kind, edition });

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command line with bash, asynchronously: the config service answering it lives in this process. */
function sh(command: string, env: Record<string, string>, timeoutMs = 180_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], {
      cwd: scratch,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, LANG: 'C', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Builds the node binary of a version into its own folder (the build caches finished binaries). */
async function buildBinary(version: string): Promise<string> {
  const out = path.join(scratch, `build-${version}`);
  const result = await sh(
    `"${process.execPath}" "${path.join(root, 'scripts/build-node-binary.mjs')}" --out "${out}" --version "${version}" --cache "${path.join(tmpdir(), 'svc-node-binary-cache')}"`,
    {},
    300_000,
  );
  if (result.code !== 0) throw new Error(`build of ${version} failed: ${result.stderr}${result.stdout}`);
  return out;
}

/** Puts a build (or any executable) into SVC_BINARIES_DIR as the config service serves it. */
function publish(executable: string, version: string): void {
  mkdirSync(binariesDir, { recursive: true });
  copyFileSync(executable, path.join(binariesDir, `${BINARY}.tmp`));
  chmodSync(path.join(binariesDir, `${BINARY}.tmp`), 0o755);
  rmSync(path.join(binariesDir, BINARY), { force: true });
  copyFileSync(path.join(binariesDir, `${BINARY}.tmp`), path.join(binariesDir, BINARY));
  chmodSync(path.join(binariesDir, BINARY), 0o755);
  rmSync(path.join(binariesDir, `${BINARY}.tmp`), { force: true });
  writeFileSync(path.join(binariesDir, 'VERSION'), `${version}\n`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function pidOf(work: string): number {
  const pid = Number(readFileSync(path.join(work, 'run', 'node.pid'), 'utf8').trim());
  expect(pid).toBeGreaterThan(1);
  pids.add(pid);
  return pid;
}

async function health(url: string): Promise<{ status: string; version: string } | undefined> {
  try {
    const response = await request(url, { headersTimeout: 3_000, bodyTimeout: 3_000 });
    const body = (await response.body.json()) as { status: string; version: string };
    return response.statusCode === 200 ? body : undefined;
  } catch {
    return undefined;
  }
}

async function nodeStatus(nodeId: string): Promise<string | undefined> {
  const [row] = await parts.nodes.findByIds([nodeId]);
  return row?.status;
}

let broken: string;
let builds: { old: string; new: string };

beforeAll(async () => {
  // One build after the other: each injects into a copy of the 100 MB Node.js executable.
  builds = { old: await buildBinary(OLD), new: await buildBinary(NEW) };
  // A build that answers --version but exits at once when started: it can never pass a health check.
  broken = path.join(scratch, 'broken-svc');
  writeFileSync(
    broken,
    `#!/bin/sh\nif [ "$1" = --version ]; then echo ${BROKEN}; exit 0; fi\necho "broken build: exiting" >&2\nexit 1\n`,
  );
  chmodSync(broken, 0o755);

  install = await startTestInstall(
    [configComponentFactory({ expose: (exposed) => (parts = exposed) })],
    { SVC_DB_MODE: 'bundled' },
    { env: { SVC_BINARIES_DIR: binariesDir, SVC_LICENSE_PUBLIC_KEY: publicKeyLine(publisher.publicKey) } },
  );
  // A STANDALONE install refuses worker nodes; the publisher's licence and edition upgrade open them.
  const refused = await admin('POST', '/api/config/nodes', {
    serviceType: 'svc-play-agent',
    name: 'too early',
    expectedHost: '127.0.0.1',
  });
  expect(refused.status).toBe(409);
  const activated = await admin('POST', '/api/license/activate', {
    code: signCode('code-e2e-1', lease('lease', 'STANDALONE', 'lic-e2e'), publisher.privateKey),
  });
  expect(activated.status, JSON.stringify(activated.body)).toBe(200);
  const upgraded = await admin('POST', '/api/admin/licenses/lic-e2e/edition', {
    lease: lease('edition-upgrade', 'DISTRIBUTED', 'lic-e2e'),
  });
  expect(upgraded.status, JSON.stringify(upgraded.body)).toBe(200);
  expect((await admin('GET', '/api/config/deployment/capabilities')).body).toMatchObject({
    edition: 'DISTRIBUTED',
    deploymentMode: 'distributed',
  });
}, 600_000);

afterAll(async () => {
  for (const pid of pids) {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  await install?.stop();
  for (const database of externalDatabases) await dropExternalDatabase(database.url, database.name);
  rmSync(scratch, { recursive: true, force: true });
});

/** The whole life of one node: install, ONLINE, upgrade, failed upgrade with rollback, uninstall. */
async function lifecycle(options: {
  nodeId: string;
  serviceType: 'svc-play-agent' | 'svc-control-storage';
  port: number;
  healthPath: string;
  env: Record<string, string>;
  /** Also upgrade from the control plane, and uninstall by deleting the record with sendUninstall=true. */
  remote?: boolean;
}): Promise<void> {
  const { nodeId, port } = options;
  const created = await admin('POST', '/api/config/nodes', {
    serviceType: options.serviceType,
    nodeId,
    name: `e2e ${nodeId}`,
    expectedHost: '127.0.0.1',
    ...(options.serviceType === 'svc-play-agent' ? { listenPort: port } : { expectedPort: port }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const revealed = await admin('GET', `/api/config/nodes/${nodeId}/credentials`);
  const credentials = revealed.body as {
    nodeToken: string;
    registryToken: string;
    installCommands: { kind: string; ffmpeg: boolean; command: string }[];
  };
  const { nodeToken, registryToken } = credentials;
  expect(nodeToken).toMatch(/^svc_nt_/);
  const shownInstall = credentials.installCommands.find((entry) => entry.kind === 'binary' && !entry.ffmpeg)!;
  expect(shownInstall.command).toContain(`/api/config/nodes/install/${nodeToken}/binary`);
  const work = path.join(scratch, `work-${nodeId}`);
  const config = install!.url('config');
  const env = {
    SVC_NODE_WORK_DIR: work,
    // A machine with systemd would get a unit; the test never registers one.
    SVC_NODE_SERVICE_MANAGER: 'none',
    SVC_BIND_HOST: '127.0.0.1',
    SVC_ADVERTISE_HOST: '127.0.0.1',
    ...options.env,
  };
  // The command lines exactly as node management shows them ("show full command").
  const script = (kind: string) => {
    const shown = credentials.installCommands.find((entry) => entry.kind === kind && !entry.ffmpeg);
    if (!shown) throw new Error(`no ${kind} command shown`);
    return sh(`set -o pipefail; ${shown.command}`, env);
  };
  const healthUrl = `http://127.0.0.1:${port}${options.healthPath}`;

  // ---- install ----
  expect(await nodeStatus(nodeId)).toBe('PENDING');
  publish(path.join(builds.old, BINARY), OLD);
  const installed = await script('binary');
  expect(installed.code, installed.stderr + installed.stdout).toBe(0);
  expect(installed.stdout).toContain('will NOT start again after a reboot');
  const firstPid = pidOf(work);
  expect(isAlive(firstPid)).toBe(true);
  expect((await health(healthUrl))?.version).toBe(OLD);
  const settings = readFileSync(path.join(work, 'node.env'), 'utf8');
  expect(statSync(path.join(work, 'node.env')).mode & 0o777).toBe(0o600);
  expect(settings).toContain(`SVC_NODE_ID=${nodeId}\n`);
  expect(settings).toContain(`SVC_REGISTRY_TOKEN=${registryToken}\n`);
  expect(settings).toContain(`SVC_CONFIG_BASE_URL=${config}\n`);
  if (options.serviceType === 'svc-play-agent') {
    expect(settings).toContain(`PLAY_AGENT_REGISTRY_TOKEN=${registryToken}\n`);
    expect(settings).toContain(`PLAY_AGENT_LISTEN=127.0.0.1:${port}\n`);
  } else {
    expect(settings).toContain(`SVC_STORAGE_PORT=${port}\n`);
  }
  // What the node needs to upgrade or uninstall itself when the control plane asks.
  expect(settings).toContain(`SVC_NODE_TOKEN=${nodeToken}\n`);
  expect(settings).toContain(`SVC_NODE_WORK_DIR=${work}\n`);
  expect(settings).toContain('SVC_NODE_INSTALL_FORM=binary\n');

  // ---- registration: the record turns ONLINE ----
  await waitFor(async () => ((await nodeStatus(nodeId)) === 'ONLINE' ? true : undefined), 30_000, 250);
  const instances = await parts.database.db
    .selectFrom('service_instances')
    .select(['service', 'base_url'])
    .where('node_id', '=', nodeId)
    .execute();
  expect(instances).toEqual([{ service: options.serviceType, base_url: `http://127.0.0.1:${port}` }]);

  // ---- upgrade to a newer build: passes, the backup is deleted ----
  publish(path.join(builds.new, BINARY), NEW);
  const upgraded = await script('upgrade-binary');
  expect(upgraded.code, upgraded.stderr + upgraded.stdout).toBe(0);
  expect(upgraded.stdout).toContain(`upgraded from ${OLD} to ${NEW}`);
  expect(existsSync(path.join(work, 'bin', 'svc.bak'))).toBe(false);
  expect(existsSync(path.join(work, 'data', 'db.upgrade-backup'))).toBe(false);
  const secondPid = pidOf(work);
  expect(secondPid).not.toBe(firstPid);
  expect(isAlive(firstPid)).toBe(false);
  expect((await health(healthUrl))?.version).toBe(NEW);

  // ---- upgrade to a build that fails its health check: rolled back by itself ----
  publish(broken, BROKEN);
  const failed = await script('upgrade-binary');
  expect(failed.code, failed.stderr + failed.stdout).toBe(3);
  expect(failed.stderr).toContain(`upgrade to ${BROKEN} failed its health check: rolled back to ${NEW}`);
  expect(failed.stdout).toContain('==> roll back');
  expect(existsSync(path.join(work, 'bin', 'svc.bak'))).toBe(false);
  expect(failed.stdout.includes('embedded database restored')).toBe(options.env.SVC_DB_MODE === 'bundled');
  expect(existsSync(path.join(work, 'data', 'db.upgrade-backup'))).toBe(false);
  const thirdPid = pidOf(work);
  expect(isAlive(thirdPid)).toBe(true);
  expect((await health(healthUrl))?.version).toBe(NEW);
  const again = await sh(`"${path.join(work, 'bin', 'svc')}" --version`, {});
  expect(again.stdout.trim()).toBe(NEW);

  if (!options.remote) {
    // ---- uninstall: the process stops, the work directory goes ----
    const removed = await script('uninstall');
    expect(removed.code, removed.stderr + removed.stdout).toBe(0);
    expect(existsSync(work)).toBe(false);
    await waitFor(async () => (isAlive(thirdPid) ? undefined : true), 10_000, 100);
    expect(await health(healthUrl)).toBeUndefined();
    return;
  }

  // ---- remote upgrade: the control plane asks, the node runs upgrade-binary detached ----
  // The older build is published as the "new" version: the health route then reports it.
  publish(path.join(builds.old, BINARY), OLD);
  await waitFor(async () => ((await nodeStatus(nodeId)) === 'ONLINE' ? true : undefined), 30_000, 250);
  const remoteUpgrade = await admin('POST', `/api/config/nodes/${nodeId}/upgrade`);
  expect(remoteUpgrade.status, JSON.stringify(remoteUpgrade.body)).toBe(202);
  expect(remoteUpgrade.body).toEqual({ nodeId, action: 'upgrade', accepted: true });
  await waitFor(async () => ((await health(healthUrl))?.version === OLD ? true : undefined), 60_000, 500);
  await waitFor(async () => (isAlive(thirdPid) ? undefined : true), 30_000, 200);
  const lifecycleLog = path.join(work, 'log', 'lifecycle.log');
  await waitFor(
    async () => (readFileSync(lifecycleLog, 'utf8').includes('finished with exit code') ? true : undefined),
    30_000,
    250,
  );
  const logText = readFileSync(lifecycleLog, 'utf8');
  expect(logText).toContain(`upgraded from ${NEW} to ${OLD}`);
  expect(logText).toContain('finished with exit code 0');
  expect(existsSync(path.join(work, 'log', 'lifecycle-upgrade-binary.sh'))).toBe(false);
  const fourthPid = pidOf(work);
  expect(isAlive(fourthPid)).toBe(true);

  // ---- remote uninstall: deleting the record sends the uninstall first ----
  await waitFor(async () => ((await nodeStatus(nodeId)) === 'ONLINE' ? true : undefined), 30_000, 250);
  const deleted = await admin('DELETE', `/api/config/nodes/${nodeId}?sendUninstall=true`);
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
  expect(deleted.body).toMatchObject({ nodeId, deleted: true, uninstall: 'sent' });
  await waitFor(async () => (existsSync(work) ? undefined : true), 60_000, 250);
  await waitFor(async () => (isAlive(fourthPid) ? undefined : true), 30_000, 100);
  expect(await health(healthUrl)).toBeUndefined();
}

describe('worker-node install scripts and the node binary, end to end', () => {
  it(
    'installs, registers, upgrades, rolls back and uninstalls a play-agent, then upgrades and uninstalls it remotely',
    { timeout: 360_000 },
    async () => {
      const [port] = await freePorts(1);
      await lifecycle({
        nodeId: 'node-e2e-player',
        serviceType: 'svc-play-agent',
        port: port!,
        healthPath: '/health',
        env: {},
        remote: true,
      });
    },
  );

  // The storage node on the test PostgreSQL when there is one, and always on its embedded database (PGlite from
  // inside the executable; the upgrade then also copies and restores the database folder).
  const databaseUrl = process.env.SVC_TEST_DATABASE_URL?.trim();
  const storageModes = databaseUrl ? (['external', 'bundled'] as const) : (['bundled'] as const);
  it.each(storageModes)(
    'does the same for a storage node (%s database)',
    { timeout: 240_000 },
    async (mode) => {
      const [port] = await freePorts(1);
      const env: Record<string, string> = { SVC_DB_MODE: mode };
      if (mode === 'external') {
        // A database of this run's own (dropped at the end).
        const suffix = `_n${randomBytes(4).toString('hex')}`;
        externalDatabases.push({ url: databaseUrl!, name: `yiyi_storage${suffix}` });
        Object.assign(env, { SVC_DATABASE_URL: databaseUrl!, SVC_DB_NAME_SUFFIX: suffix });
      }
      await lifecycle({
        nodeId: `node-e2e-storage-${mode}`,
        serviceType: 'svc-control-storage',
        port: port!,
        healthPath: '/api/storage/ping',
        env,
      });
    },
  );

  it(
    'runs the storage node on its embedded database (PGlite from inside the executable)',
    { timeout: 120_000 },
    async () => {
      const [port] = await freePorts(1);
      const dir = path.join(scratch, 'embedded');
      mkdirSync(path.join(dir, 'bin'), { recursive: true });
      copyFileSync(path.join(builds.old, BINARY), path.join(dir, 'bin', 'svc'));
      chmodSync(path.join(dir, 'bin', 'svc'), 0o755);
      const child = spawn(path.join(dir, 'bin', 'svc'), ['node', 'storage'], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          SVC_DATA_DIR: path.join(dir, 'data'),
          SVC_SERVICE_TOKEN: 'svc_st_embedded_storage_test_token_0123456789',
          SVC_NODE_ID: 'node-e2e-embedded',
          SVC_STORAGE_PORT: String(port),
          SVC_BIND_HOST: '127.0.0.1',
          SVC_CONFIG_BASE_URL: install!.url('config'),
          SVC_DB_MODE: 'bundled',
          SVC_LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      pids.add(child.pid!);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      try {
        const answer = await waitFor(
          async () => {
            if (child.exitCode !== null) throw new Error(`the storage node exited: ${stderr}`);
            return health(`http://127.0.0.1:${port}/api/storage/ping`);
          },
          60_000,
          250,
        );
        expect(answer).toMatchObject({ status: 'UP', version: OLD });
        // PGlite's files were written beside the binary, and the database beside the data folder.
        const assets = path.join(dir, 'bin', '.svc-assets');
        expect(existsSync(assets)).toBe(true);
        expect(existsSync(path.join(dir, 'data', 'db'))).toBe(true);
      } finally {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
  );

  it('runs only worker-node commands', async () => {
    const binary = path.join(builds.new, BINARY);
    expect((await sh(`"${binary}" --version`, {})).stdout.trim()).toBe(NEW);
    const other = await sh(`"${binary}" standalone`, {});
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('this binary runs worker nodes only');
  });
});
