import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, open as openFile, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import type { BrowseResponse, ListNodesResponse, Upload } from '@svc/contracts';
import { parse as parseYaml } from 'yaml';
import { SERVICE_MIGRATIONS } from '../../src/cli/migrate.js';
import { openAt, type DatabaseLocation } from '../../src/form-migration/database-locations.js';
import {
  dropExternalDatabase,
  runMigrations,
  type ServiceDatabaseName,
} from '../../src/platform/db/index.js';
import type { ConfigDatabase } from '../../src/services/config/config.db.js';
import { NodesRepository } from '../../src/services/config/nodes/nodes.repository.js';
import { loadSettings } from '../../src/platform/settings.js';
import { SecretBox } from '../../src/platform/secret-box.js';
import { TEMP_PREFIX } from '../../src/services/storage/path-safety.js';
import { PasswordHasher } from '../../src/services/user/auth/password-hasher.js';
import { readRepoFile } from '../deploy/deploy-files.js';
import { postgresTestUrl, quietLogger } from '../support/databases.js';
import { mediaFixtures } from '../support/media-fixtures.js';
import { call, signInPlayer, type Json } from '../support/playback-install.js';
import { freePorts, portEnv, standaloneHealthUrls } from '../support/ports.js';
import { waitFor } from '../support/runtime.js';
import { isAlive, runSvc, type SvcProcess } from '../support/svc-process.js';

const databaseUrl = postgresTestUrl();
const logger = quietLogger();
const started: SvcProcess[] = [];
const folders: string[] = [];
const databases: string[] = [];
const ADMIN = { username: 'legacy-admin', password: 'legacy-admin-password-1' };
const EMBY_AUTH = 'MediaBrowser Client="Test", Device="Test", DeviceId="legacy-promote", Version="1.0"';
const DAV = { username: 'dav', password: 'dav-password-1' };
/** The legacy storage node's data folder inside its container: upload rows name their spool files under it. */
const LEGACY_CONTAINER_DATA = '/data';
const servers: ChildProcess[] = [];

afterAll(async () => {
  for (const server of servers) {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
  }
  for (const svc of started) {
    if (svc.child.exitCode === null && svc.child.signalCode === null) {
      svc.child.kill('SIGKILL');
      await svc.exited;
    }
    for (const pid of svc.childPids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const name of databases) await dropExternalDatabase(databaseUrl!, name);
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

function folder(label: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `svc-legacy-run-${label}-`));
  folders.push(dir);
  return dir;
}

/** A folder served by `rclone serve webdav` on loopback, with basic auth: a drive of the legacy storage node. */
async function startWebdav(dir: string): Promise<string> {
  const [port] = await freePorts(1);
  const child = spawn(
    'rclone',
    ['serve', 'webdav', '--addr', `127.0.0.1:${port}`, '--user', DAV.username, '--pass', DAV.password, dir],
    { stdio: 'ignore' },
  );
  servers.push(child);
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(async () => ((await fetch(url, { method: 'OPTIONS' }).catch(() => null)) ? true : undefined));
  return url;
}

interface PendingUpload {
  id: string;
  bytes: Buffer;
  chunkSize: number;
}

interface LegacyInstall {
  suffix: string;
  libraryId: string;
  /** The WebDAV mount, its password sealed with the legacy storage node's key. */
  davMountId: string;
  /** A local mount to upload into. */
  inboxMountId: string;
  /** An upload to the WebDAV mount the legacy node had begun: chunk 0 in its spool, chunks 1 and 2 missing. */
  pending: PendingUpload;
}

/**
 * A used legacy multi-container install: four databases on PostgreSQL, two storage nodes and a play-agent
 * (EXTERNAL), an admin who can sign in, a local mount on the storage node holding the generated films and a
 * library whose source names that node; in the storage node's data folder its sealed-credential key, sealing
 * the password of a WebDAV mount, and the spool file of an upload in progress to that mount.
 */
async function buildLegacy(
  libraryRoot: string,
  drive: { url: string; storageData: string; inbox: string },
): Promise<LegacyInstall> {
  const suffix = `_lr${randomBytes(4).toString('hex')}`;
  const location: DatabaseLocation = { mode: 'external', databaseUrl: databaseUrl!, nameSuffix: suffix };
  const open = async (name: ServiceDatabaseName) => {
    const database = await openAt(location, name, logger);
    databases.push(database.databaseName);
    await runMigrations(database, SERVICE_MIGRATIONS[name]);
    return database;
  };
  const config = await open('svc_config');
  const user = await open('svc_user');
  const media = await open('svc_media');
  const storage = await open('yiyi_storage');
  try {
    const nodes = new NodesRepository(config.db as Kysely<ConfigDatabase>);
    for (const [nodeId, serviceType] of [
      ['node-legacy-st1', 'svc-control-storage'],
      ['node-legacy-st2', 'svc-control-storage'],
      ['node-legacy-pa1', 'svc-play-agent'],
    ] as const) {
      await nodes.ensure({ nodeId, serviceType, name: nodeId, scope: 'EXTERNAL' });
    }
    const hash = await new PasswordHasher().hash(ADMIN.password);
    await sql`INSERT INTO users (id, username, display_name, role, password_hash, permissions, created_at, updated_at)
              VALUES (${randomUUID()}, ${ADMIN.username}, 'Legacy admin', 'admin', ${hash}, '[]'::jsonb, now(),
                      now())`.execute(user.db);
    const mountId = randomUUID();
    await sql`INSERT INTO storage_mounts (id, name, provider, config, created_at, updated_at)
              VALUES (${mountId}, 'films', 'local', ${JSON.stringify({ root: libraryRoot })}::jsonb, now(),
                      now())`.execute(storage.db);
    const box = SecretBox.fromDataDir(drive.storageData);
    const davMountId = randomUUID();
    const davConfig = {
      url: drive.url,
      username: DAV.username,
      password: box.seal(DAV.password),
      allowPrivateNetwork: true,
    };
    const inboxMountId = randomUUID();
    await sql`INSERT INTO storage_mounts (id, name, provider, config, created_at, updated_at)
              VALUES (${davMountId}, 'nas', 'webdav', ${JSON.stringify(davConfig)}::jsonb, now(), now()),
                     (${inboxMountId}, 'inbox', 'local', ${JSON.stringify({ root: drive.inbox })}::jsonb, now(),
                      now())`.execute(storage.db);
    // Spooled in the node's data folder (a drive has no local files); the row names the file where the
    // legacy container had it.
    const chunkSize = 256 * 1024;
    const pending: PendingUpload = { id: randomUUID(), bytes: randomBytes(2 * chunkSize + 1000), chunkSize };
    const spool = path.join(drive.storageData, 'storage', 'uploads');
    await mkdir(spool, { recursive: true });
    const spoolFile = await openFile(path.join(spool, `${TEMP_PREFIX}${pending.id}`), 'wx');
    try {
      await spoolFile.truncate(pending.bytes.length);
      await spoolFile.write(pending.bytes, 0, chunkSize, 0);
    } finally {
      await spoolFile.close();
    }
    const staging = `local:${path.posix.join(LEGACY_CONTAINER_DATA, 'storage', 'uploads', `${TEMP_PREFIX}${pending.id}`)}`;
    const sha256 = createHash('sha256').update(pending.bytes).digest('hex');
    await sql`INSERT INTO storage_uploads (id, mount_id, path, size, sha256, overwrite, chunk_size, chunk_count,
                                           staging, state, created_by, created_at, updated_at, expires_at)
              VALUES (${pending.id}, ${davMountId}, 'resumed.bin', ${pending.bytes.length}, ${sha256}, false,
                      ${chunkSize}, 3, ${staging}, 'open', ${ADMIN.username}, now(), now(),
                      now() + interval '1 day')`.execute(storage.db);
    await sql`INSERT INTO storage_upload_chunks (upload_id, chunk_index) VALUES (${pending.id}, 0)`.execute(
      storage.db,
    );
    const libraryId = randomUUID();
    await sql`INSERT INTO libraries (id, name, type, created_at, updated_at)
              VALUES (${libraryId}, 'Movies', 'movies', now(), now())`.execute(media.db);
    await sql`INSERT INTO library_sources (id, library_id, position, node_id, mount_id, path)
              VALUES (${randomUUID()}, ${libraryId}, 0, 'node-legacy-st1', ${mountId}, '/Movies')`.execute(
      media.db,
    );
    return { suffix, libraryId, davMountId, inboxMountId, pending };
  } finally {
    for (const database of [config, user, media, storage]) await database.close();
  }
}

async function healthStatus(url: string): Promise<number> {
  const response = await request(url, { headersTimeout: 5_000, bodyTimeout: 5_000 });
  await response.body.dump();
  return response.statusCode;
}

/*
 * Spec, "Migration rules between forms", legacy multi-container to standalone: the checklist on the running
 * install. The legacy layout is promoted by the built program (`svc migrate legacy-promote`), then `svc standalone`
 * starts on the promoted data folder and environment file.
 */
describe.skipIf(!databaseUrl)('legacy layout → svc migrate legacy-promote → svc standalone', () => {
  it(
    'runs healthy with the chosen node ids ONLINE, the library browsable, a file playing, the drive, uploads and downloads working',
    { timeout: 600_000 },
    async () => {
      const fixtures = await mediaFixtures();
      const davDir = folder('dav');
      const onDrive = randomBytes(50_000);
      await writeFile(path.join(davDir, 'existing.bin'), onDrive);
      const storageData = folder('legacy-storage-data');
      const inbox = folder('inbox');
      const { suffix, libraryId, davMountId, inboxMountId, pending } = await buildLegacy(fixtures.library, {
        url: await startWebdav(davDir),
        storageData,
        inbox,
      });
      const root = folder('standalone');
      const dataDir = path.join(root, 'data');
      const envFile = path.join(root, '.env');
      // The operator's environment file exists (the pre-check writes into it).
      await writeFile(envFile, '# standalone settings\n');

      const promote = runSvc(
        [
          'migrate',
          'legacy-promote',
          '--legacy-suffix',
          suffix,
          '--settings-file',
          envFile,
          '--storage-node',
          'node-legacy-st1',
          '--play-agent-node',
          'node-legacy-pa1',
          '--backup-dir',
          path.join(root, 'backup'),
          '--legacy-storage-data',
          storageData,
          '--confirm',
        ],
        { SVC_LEGACY_DATABASE_URL: databaseUrl!, SVC_DATA_DIR: dataDir, SVC_DB_MODE: 'bundled' },
      );
      const promoted = await promote.exited;
      expect(promoted.code, promote.stderr() + promote.stdout()).toBe(0);
      expect(promote.stdout()).toMatch(/\[ok\] unchosen nodes disabled, records kept/);

      // The standalone with the environment file the promotion wrote.
      const written = Object.fromEntries(
        (await readFile(envFile, 'utf8'))
          .split('\n')
          .filter((line) => /^SVC_EMBEDDED_[A-Z_]+=/.test(line))
          .map((line) => line.split('=') as [string, string]),
      );
      expect(written).toEqual({
        SVC_EMBEDDED_STORAGE_NODE_ID: 'node-legacy-st1',
        SVC_EMBEDDED_PLAY_AGENT_NODE_ID: 'node-legacy-pa1',
      });

      // The compose deployment (docker does not run on the test machines, so compose itself is not started):
      // compose.yaml has exactly the three services; svc reads the environment file the promotion wrote and sets
      // none of its variables itself, so they take effect; inside the container (SVC_DATA_DIR=/data) the cache
      // folders the promotion fills are the two cache volumes, and the data folder the data volume.
      const compose = parseYaml(readRepoFile('compose.yaml')) as {
        services: Record<
          string,
          { env_file?: unknown; environment?: Record<string, string>; volumes?: string[] }
        >;
      };
      expect(Object.keys(compose.services).sort()).toEqual(['postgres', 'redis', 'svc']);
      const app = compose.services.svc!;
      expect(app.env_file).toEqual([{ path: '.env', required: false }]);
      for (const name of Object.keys(written)) expect(Object.keys(app.environment ?? {})).not.toContain(name);
      const inContainer = loadSettings(
        {
          ...app.environment,
          SVC_DATABASE_URL: 'postgres://svc:password@postgres:5432/postgres',
          ...written,
        },
        '/',
      );
      expect(inContainer.embeddedStorageNodeId).toBe('node-legacy-st1');
      expect(inContainer.embeddedPlayAgentNodeId).toBe('node-legacy-pa1');
      expect(app.volumes).toEqual(
        expect.arrayContaining([
          `data:${inContainer.dataDir}`,
          `vfs-cache:${inContainer.playAgent.vfsCacheDir}`,
          `image-cache:${inContainer.playAgent.imageCacheDir}`,
        ]),
      );

      const env = { ...(await portEnv()), ...written, SVC_DATA_DIR: dataDir, SVC_DB_MODE: 'bundled' };
      const svc = runSvc(['standalone'], env);
      started.push(svc);
      await svc.waitForLog(/standalone edition is up/, 240_000);

      // Every listener healthy.
      for (const url of standaloneHealthUrls(env)) expect(await healthStatus(url), url).toBe(200);

      // The legacy admin signs in; both promoted nodes come ONLINE under their ids, the unchosen one stays disabled.
      const entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
      const login = await call(entrance, 'POST', '/api/auth/login', {
        body: { ...ADMIN, client: 'console' },
      });
      expect(login.status, login.text).toBe(200);
      const admin = <T = Json>(method: string, route: string, body?: unknown) =>
        call<T>(entrance, method, route, {
          headers: { 'x-admin-token': String(login.body.adminToken) },
          body,
        });
      const nodes = await waitFor(
        async () => {
          const list = (await admin<ListNodesResponse>('GET', '/api/config/nodes')).body.nodes;
          const online = (id: string) => list.find((node) => node.nodeId === id)?.status === 'ONLINE';
          return online('node-legacy-st1') && online('node-legacy-pa1') ? list : undefined;
        },
        120_000,
        500,
      );
      const byId = new Map(nodes.map((node) => [node.nodeId, node]));
      expect(byId.get('node-legacy-st1')).toMatchObject({ scope: 'EMBEDDED', disabled: false });
      expect(byId.get('node-legacy-pa1')).toMatchObject({ scope: 'EMBEDDED', disabled: false });
      expect(byId.get('node-legacy-st2')).toMatchObject({ disabled: true });
      expect(byId.has('node-local-storage')).toBe(false);
      expect(byId.has('node-local-play-agent')).toBe(false);

      // The library's source names node-legacy-st1: a scan reads the moved mount through the built-in storage node.
      const scan = await admin('POST', `/api/media/libraries/${libraryId}/scan`, { mode: 'full' });
      expect(scan.status, scan.text).toBe(202);
      await waitFor(
        async () => {
          const state = (
            await admin<{ scan: { state: string } | null }>('GET', `/api/media/libraries/${libraryId}/scan`)
          ).body.scan?.state;
          if (state === 'failed') throw new Error('the scan failed');
          return state === 'succeeded' ? true : undefined;
        },
        180_000,
        500,
      );

      // Browsing through the built-in play-agent, and a ranged stream of one film.
      const playAgent = `http://${env.PLAY_AGENT_LISTEN}`;
      const viewer = await signInPlayer(playAgent, EMBY_AUTH, ADMIN);
      const items = await call<{ Items: { Id: string; Name: string }[] }>(
        playAgent,
        'GET',
        `/emby/Users/${viewer.userId}/Items?Recursive=true&IncludeItemTypes=Movie`,
        { headers: { 'x-emby-token': viewer.token } },
      );
      expect(items.status).toBe(200);
      expect(items.body.Items.map((item) => item.Name).sort()).toEqual(
        fixtures.movies
          .filter((movie) => movie.file.startsWith('/Movies/'))
          .map((movie) => movie.title)
          .sort(),
      );
      const film = items.body.Items[0]!;
      const stream = await request(
        `${playAgent}/Videos/${film.Id}/stream?static=true&api_key=${viewer.token}`,
        {
          headers: { range: 'bytes=100-1123' },
        },
      );
      const bytes = Buffer.from(await stream.body.arrayBuffer());
      expect(stream.statusCode).toBe(206);
      expect(stream.headers['content-range']).toMatch(/^bytes 100-1123\/\d+$/);
      expect(bytes.length).toBe(1024);

      // Drives: the WebDAV mount's password was sealed with the legacy node's key, which moved with its data.
      const adminHeaders = { 'x-admin-token': String(login.body.adminToken) };
      const download = async (mountId: string, file: string) => {
        const response = await request(
          `${entrance}/api/storage/mounts/${mountId}/download?path=${encodeURIComponent(file)}`,
          { headers: adminHeaders },
        );
        return { status: response.statusCode, bytes: Buffer.from(await response.body.arrayBuffer()) };
      };
      const listed = await admin<BrowseResponse>('GET', `/api/storage/mounts/${davMountId}/browse?path=`);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.entries.map((entry) => entry.name)).toContain('existing.bin');
      const fromDrive = await download(davMountId, 'existing.bin');
      expect(fromDrive.status).toBe(200);
      expect(fromDrive.bytes.equals(onDrive)).toBe(true);

      // Upload: the one the legacy node had begun resumes from its moved spool (the checksum at completion
      // covers the chunk received before the migration), and a new one to a local mount; both download again.
      const sendChunk = async (mountId: string, uploadId: string, index: number, bytes: Buffer) => {
        const response = await request(
          `${entrance}/api/storage/mounts/${mountId}/uploads/${uploadId}/chunks/${index}`,
          {
            method: 'PUT',
            headers: { ...adminHeaders, 'content-type': 'application/octet-stream' },
            body: bytes,
          },
        );
        expect(response.statusCode, await response.body.text()).toBe(200);
      };
      const resumed = await admin<Upload>('GET', `/api/storage/mounts/${davMountId}/uploads/${pending.id}`);
      expect(resumed.status, resumed.text).toBe(200);
      expect(resumed.body).toMatchObject({
        state: 'open',
        received: [0],
        chunkCount: 3,
        path: 'resumed.bin',
      });
      for (const index of [1, 2])
        await sendChunk(
          davMountId,
          pending.id,
          index,
          pending.bytes.subarray(index * pending.chunkSize, (index + 1) * pending.chunkSize),
        );
      const completed = await admin(
        'POST',
        `/api/storage/mounts/${davMountId}/uploads/${pending.id}/complete`,
      );
      expect(completed.status, completed.text).toBe(200);
      expect((await readFile(path.join(davDir, 'resumed.bin'))).equals(pending.bytes)).toBe(true);
      expect((await download(davMountId, 'resumed.bin')).bytes.equals(pending.bytes)).toBe(true);

      const fresh = randomBytes(70_000);
      const created = await admin<Upload>('POST', `/api/storage/mounts/${inboxMountId}/uploads`, {
        path: 'after-promotion.bin',
        size: fresh.length,
      });
      expect(created.status, created.text).toBe(201);
      await sendChunk(inboxMountId, created.body.id, 0, fresh);
      const done = await admin(
        'POST',
        `/api/storage/mounts/${inboxMountId}/uploads/${created.body.id}/complete`,
      );
      expect(done.status, done.text).toBe(200);
      expect((await readFile(path.join(inbox, 'after-promotion.bin'))).equals(fresh)).toBe(true);
      const back = await download(inboxMountId, 'after-promotion.bin');
      expect(back.status).toBe(200);
      expect(back.bytes.equals(fresh)).toBe(true);

      svc.child.kill('SIGINT');
      expect((await svc.exited).code).toBe(0);
    },
  );
});
