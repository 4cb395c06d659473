import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import type { ListNodesResponse } from '@svc/contracts';
import { SERVICE_MIGRATIONS } from '../../src/cli/migrate.js';
import { openAt, type DatabaseLocation } from '../../src/form-migration/database-locations.js';
import {
  dropExternalDatabase,
  runMigrations,
  type ServiceDatabaseName,
} from '../../src/platform/db/index.js';
import type { ConfigDatabase } from '../../src/services/config/config.db.js';
import { NodesRepository } from '../../src/services/config/nodes/nodes.repository.js';
import { PasswordHasher } from '../../src/services/user/auth/password-hasher.js';
import { postgresTestUrl, quietLogger } from '../support/databases.js';
import { mediaFixtures } from '../support/media-fixtures.js';
import { call, signInPlayer, type Json } from '../support/playback-install.js';
import { portEnv, standaloneHealthUrls } from '../support/ports.js';
import { waitFor } from '../support/runtime.js';
import { isAlive, runSvc, type SvcProcess } from '../support/svc-process.js';

const databaseUrl = postgresTestUrl();
const logger = quietLogger();
const started: SvcProcess[] = [];
const folders: string[] = [];
const databases: string[] = [];
const ADMIN = { username: 'legacy-admin', password: 'legacy-admin-password-1' };
const EMBY_AUTH = 'MediaBrowser Client="Test", Device="Test", DeviceId="legacy-promote", Version="1.0"';

afterAll(async () => {
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

/**
 * A used legacy multi-container install: four databases on PostgreSQL, two storage nodes and a play-agent
 * (EXTERNAL), an admin who can sign in, a local mount on the storage node holding the generated films and a
 * library whose source names that node.
 */
async function buildLegacy(libraryRoot: string): Promise<{ suffix: string; libraryId: string }> {
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
    const libraryId = randomUUID();
    await sql`INSERT INTO libraries (id, name, type, created_at, updated_at)
              VALUES (${libraryId}, 'Movies', 'movies', now(), now())`.execute(media.db);
    await sql`INSERT INTO library_sources (id, library_id, position, node_id, mount_id, path)
              VALUES (${randomUUID()}, ${libraryId}, 0, 'node-legacy-st1', ${mountId}, '/Movies')`.execute(
      media.db,
    );
    return { suffix, libraryId };
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
    'runs healthy with the chosen node ids ONLINE, the library browsable and a file playing',
    { timeout: 600_000 },
    async () => {
      const fixtures = await mediaFixtures();
      const { suffix, libraryId } = await buildLegacy(fixtures.library);
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

      svc.child.kill('SIGINT');
      expect((await svc.exited).code).toBe(0);
    },
  );
});
