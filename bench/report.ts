// `npm run bench -- report`: the playback report's endpoints on 10 million activity events, on PostgreSQL and on
// the embedded database, next to a bare count(*) of the same window; and a play-agent stream's throughput with
// and without report queries running.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { request } from 'undici';
import {
  dropExternalDatabase,
  openServiceDatabase,
  runMigrations,
  SERVICE_DATABASE_NAMES,
} from '../packages/server/src/platform/db/index.js';
import { createLogger } from '../packages/server/src/platform/logger.js';
import type { UserDatabase } from '../packages/server/src/services/user/user.db.js';
import { userMigrations } from '../packages/server/src/services/user/migrations/index.js';
import { portEnv, standaloneHealthUrls, type PortEnv } from '../packages/server/test/support/ports.js';
import { stop } from './nginx.js';
import { reportDataCache } from './report-cache.js';
import { isHealthy, json, scannedBenchLibrary, waitWhileRunning, type Json } from './support.js';

export interface ReportDataShape {
  /** Accounts (users table). */
  users: number;
  /** Play sessions; every session has EVENTS_PER_SESSION events. */
  sessions: number;
  /** The log spans this many days up to `end`. */
  days: number;
  end: Date;
  /** Sessions per INSERT statement. */
  chunk: number;
}

export const EVENTS_PER_SESSION = 10;
/** Minutes between two events of a session. */
const STEP_MINUTES = 5;
const MEDIA_ITEMS = 20_000;

type Db = Kysely<UserDatabase>;

/** The id of synthetic user n (deterministic, cheap to compute in SQL as well). */
export const benchUserId = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** Secondary indexes and unique constraints of activity_log, to drop before a bulk load and rebuild after. */
async function secondaryIndexes(db: Db): Promise<{ drop: string[]; create: string[] }> {
  const constraints = await sql<{ name: string; definition: string }>`
    SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
    WHERE conrelid = 'activity_log'::regclass AND contype = 'u'
  `.execute(db);
  const indexes = await sql<{ name: string; definition: string }>`
    SELECT indexname AS name, indexdef AS definition FROM pg_indexes
    WHERE schemaname = current_schema() AND tablename = 'activity_log'
  `.execute(db);
  const constraintNames = new Set(constraints.rows.map((row) => row.name));
  const plain = indexes.rows.filter((row) => !constraintNames.has(row.name) && !row.name.endsWith('_pkey'));
  return {
    drop: [
      ...constraints.rows.map((row) => `ALTER TABLE activity_log DROP CONSTRAINT ${row.name}`),
      ...plain.map((row) => `DROP INDEX ${row.name}`),
    ],
    create: [
      ...constraints.rows.map(
        (row) => `ALTER TABLE activity_log ADD CONSTRAINT ${row.name} ${row.definition}`,
      ),
      ...plain.map((row) => row.definition),
    ],
  };
}

/**
 * Fills users and activity_log: `users` accounts and `sessions` play sessions of EVENTS_PER_SESSION events each
 * (start, progress…, stop, 5 minutes apart), spread evenly over `days` days before `end`, in time order as a
 * live install would have stored them. Users and items are skewed (a few heavy users, popular titles); 10 % of
 * sessions are redirected (0 bytes). Indexes are dropped during the load and rebuilt after it; the sessions
 * rollup is filled by its trigger as the events arrive, as on a live install.
 */
export async function generateReportData(
  pool: Db,
  shape: ReportDataShape,
  progress: (message: string) => void,
): Promise<void> {
  // One connection throughout, so the session settings apply to every statement.
  await pool.connection().execute(async (db) => {
    await sql`SET maintenance_work_mem = '512MB'`.execute(db);
    // The sessions-rollup trigger aggregates each chunk of 500,000 events in memory.
    await sql`SET work_mem = '256MB'`.execute(db);
    await loadReportData(db, shape, progress);
  });
}

async function loadReportData(
  db: Db,
  shape: ReportDataShape,
  progress: (message: string) => void,
): Promise<void> {
  await sql`
    INSERT INTO users (id, username, display_name, role, disabled, password_hash, permissions, created_at, updated_at)
    SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, 'viewer' || n, 'Viewer ' || n, 'user',
           false, 'scrypt$32768$8$1$AAAA$AAAA', '[]', ${shape.end}::timestamptz - interval '400 days',
           ${shape.end}::timestamptz - interval '400 days'
    FROM generate_series(0, ${shape.users - 1}::int) n
  `.execute(db);

  const indexes = await secondaryIndexes(db);
  for (const statement of indexes.drop) await sql.raw(statement).execute(db);

  const spanSeconds = shape.days * 86_400;
  const began = Date.now();
  for (let first = 0; first < shape.sessions; first += shape.chunk) {
    const last = Math.min(shape.sessions, first + shape.chunk) - 1;
    // r1..r5: independent pseudo-random numbers in [0, 1) per session (hashint8extended with different seeds).
    await sql`
      INSERT INTO activity_log (
        event_id, user_id, username, event_type, occurred_at, received_at, session_id, client_ip, user_agent,
        media_id, media_type, media_name, series_name, duration_ms, bytes_delta, position_sec, runtime_sec,
        node_id, endpoint_id, client, device_name, device_id, play_method, result, reason, extras
      )
      SELECT
        md5(s.n::text || ':' || k)::uuid,
        ('00000000-0000-4000-8000-' || lpad(to_hex(s.u), 12, '0'))::uuid,
        'viewer' || s.u,
        CASE k WHEN 0 THEN 'start' WHEN ${EVENTS_PER_SESSION - 1}::int THEN 'stop' ELSE 'progress' END,
        s.started + make_interval(mins => k * ${STEP_MINUTES}::int),
        s.started + make_interval(mins => k * ${STEP_MINUTES}::int),
        's-' || s.n,
        '10.' || (s.u % 200) || '.' || (s.u % 250) || '.7',
        (ARRAY['Dalvik/2.1.0 (Linux; Android 14)', 'Infuse/7.6 (iPhone; iOS 17)', 'Infuse/7.6 tvOS/17',
               'Mozilla/5.0 (Windows NT 10.0) Chrome/120', 'Mozilla/5.0 (Macintosh) Safari/605',
               'Kodi/20.2 (X11; Linux x86_64)', 'okhttp/4.9 Android TV'])[s.device + 1],
        'm' || s.m,
        (ARRAY['movie', 'episode', 'episode', 'audio', 'other'])[s.m % 5 + 1],
        'Title ' || s.m,
        CASE WHEN s.m % 5 IN (1, 2) THEN 'Series ' || (s.m % 700) END,
        CASE WHEN k = 0 THEN 0 ELSE ${STEP_MINUTES * 60_000}::int - (s.n % 1000) END,
        CASE WHEN k = 0 OR s.redirect THEN 0 ELSE 50000000 + ((s.n * 7919 + k * 104729) % 250000000) END,
        k * ${STEP_MINUTES * 60}::float8,
        CASE WHEN s.m % 5 = 3 THEN 240.0 ELSE 2700.0 + (s.m % 90) * 60 END,
        'node-local-play-agent', NULL,
        (ARRAY['Emby for Android', 'Infuse', 'Infuse', 'Emby Web', 'Emby Web', 'Kodi', 'Emby for Android TV'])[s.device + 1],
        'device-' || (s.u % 97) || '-' || s.device,
        'd' || s.u || '-' || s.device,
        CASE WHEN s.redirect THEN 'Redirect' ELSE 'DirectPlay' END,
        NULL, CASE WHEN k = ${EVENTS_PER_SESSION - 1}::int THEN 'stopped' END, '{}'
      FROM (
        SELECT n,
               floor(${shape.users}::int * power(r1, 2))::int AS u,
               floor(${MEDIA_ITEMS}::int * power(r2, 3))::int AS m,
               floor(r3 * 7)::int AS device,
               r4 < 0.1 AS redirect,
               ${shape.end}::timestamptz - make_interval(secs => ${spanSeconds}::float8)
                 + make_interval(secs => (n + r5) * ${spanSeconds}::float8 / ${shape.sessions}::float8
                   - ${EVENTS_PER_SESSION * STEP_MINUTES * 60}::float8) AS started
        FROM (
          SELECT n,
                 (hashint8extended(n, 1) & 4294967295)::float8 / 4294967296 AS r1,
                 (hashint8extended(n, 2) & 4294967295)::float8 / 4294967296 AS r2,
                 (hashint8extended(n, 3) & 4294967295)::float8 / 4294967296 AS r3,
                 (hashint8extended(n, 4) & 4294967295)::float8 / 4294967296 AS r4,
                 (hashint8extended(n, 5) & 4294967295)::float8 / 4294967296 AS r5
          FROM generate_series(${first}::bigint, ${last}::bigint) n
        ) r
      ) s
      CROSS JOIN generate_series(0, ${EVENTS_PER_SESSION - 1}::int) k
    `.execute(db);
    const done = last + 1;
    const elapsed = (Date.now() - began) / 1000;
    progress(
      `  ${(done * EVENTS_PER_SESSION).toLocaleString('en')} events (${elapsed.toFixed(0)} s, ${Math.round((done * EVENTS_PER_SESSION) / elapsed).toLocaleString('en')}/s)`,
    );
  }
  const indexStart = Date.now();
  for (const statement of indexes.create) await sql.raw(statement).execute(db);
  progress(`  indexes rebuilt in ${((Date.now() - indexStart) / 1000).toFixed(0)} s`);
  const vacuumStart = Date.now();
  // Every activity_ table — the log and all its rollups, also ones added later — needs statistics and a
  // visibility map (index-only scans), as a live install's autovacuum keeps them.
  const tables = await sql<{ name: string }>`
    SELECT tablename AS name FROM pg_tables
    WHERE schemaname = current_schema() AND tablename LIKE 'activity\\_%'
    ORDER BY tablename
  `.execute(db);
  for (const { name } of tables.rows) await sql`VACUUM ANALYZE ${sql.table(name)}`.execute(db);
  await sql`VACUUM ANALYZE users`.execute(db);
  progress(`  VACUUM ANALYZE in ${((Date.now() - vacuumStart) / 1000).toFixed(0)} s`);
}

// --- The benchmark -------------------------------------------------------------------------------------------

const BUNDLE = path.resolve('packages/server/dist/svc.mjs');
const MB = 1024 * 1024;
const DAY_MS = 86_400_000;
const RUNS = 5;
const STREAM_FILE_BYTES = 1024 * MB;
const STREAM_RUNS = 3;
const PASSWORD = 'bench-password-1';

const GOAL_OVERVIEW_PG_MS = 500;
const GOAL_ENDPOINT_PG_MS = 1000;
const GOAL_ENDPOINT_PGLITE_MS = 3000;
const GOAL_STREAM_LOSS = 0.1;

type Backend = 'postgres' | 'pglite';

interface Timing {
  name: string;
  median: number;
  min: number;
  max: number;
  /** The machine's 1-minute load average right after the runs. */
  load: number;
}

interface BackendResult {
  backend: Backend;
  events: number;
  windowEvents: number;
  generateSeconds: number;
  count: Timing;
  endpoints: Timing[];
  stream: {
    idle: number[];
    loaded: number[];
    lanIdle: number[];
    lanLoaded: number[];
    queriesDuring: number;
    paced: { idle: { rate: number; maxGapMs: number }; loaded: { rate: number; maxGapMs: number } };
  } | null;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(name: string, runs: number, work: () => Promise<unknown>): Promise<Timing> {
  await work(); // warm-up: caches, plans, connections
  const all: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const began = performance.now();
    await work();
    all.push(performance.now() - began);
  }
  return { name, median: median(all), min: Math.min(...all), max: Math.max(...all), load: loadavg()[0]! };
}

/** The report endpoints as the console calls them, for the last 30 days. */
function endpoints(): { name: string; route: string }[] {
  const window = 'preset=last30d';
  return [
    { name: 'overview (both periods)', route: `overview?${window}` },
    { name: 'timeline (hour)', route: `timeline?${window}&granularity=hour` },
    { name: 'timeline (day)', route: `timeline?${window}&granularity=day` },
    { name: 'concurrent (hour)', route: `concurrent?${window}&granularity=hour` },
    { name: 'heatmap', route: `heatmap?${window}` },
    { name: 'top-users', route: `top-users?${window}&sort=watchMs` },
    { name: 'top-media', route: `top-media?${window}&sort=playCount` },
    { name: 'inactive-users', route: `inactive-users?${window}&pageSize=100` },
    { name: 'devices', route: `devices?${window}` },
    { name: 'user/{id} (30 days)', route: `user/${benchUserId(0)}?range=30d` },
    { name: 'media-watchers', route: `media-watchers?${window}&mediaId=m0&pageSize=100` },
    { name: 'device-users (client)', route: `device-users?${window}&client=Infuse&pageSize=100` },
    { name: 'device-users (platform)', route: `device-users?${window}&platform=android&pageSize=100` },
    { name: 'overview, movies only', route: `overview?${window}&mediaType=movie` },
  ];
}

async function startStandalone(env: Record<string, string>, ports: PortEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BUNDLE, 'standalone'], {
    env: { ...process.env, ...env, SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const urls = standaloneHealthUrls(ports);
  await waitWhileRunning(
    child,
    async () => (await Promise.all(urls.map(isHealthy))).every(Boolean),
    'the standalone install to be healthy',
  );
  return child;
}

/** A client on a gigabit LAN: the fastest a home player gets; its first LAN_BYTES. */
const LAN_RATE = 125_000_000;
const LAN_BYTES = 256 * MB;

/**
 * curl without blocking this process (the report load runs here meanwhile); MB/s. `lan`: the first LAN_BYTES
 * at most LAN_RATE bytes per second, as a client behind a gigabit link reads.
 */
function curlSpeed(url: string, expectedBytes: number, lan = false): Promise<number> {
  const limits = lan ? ['--limit-rate', String(LAN_RATE), '-r', `0-${LAN_BYTES - 1}`] : [];
  return new Promise((resolve, reject) => {
    const child = spawn('curl', [
      '-s',
      '-o',
      '/dev/null',
      ...limits,
      '-w',
      '%{size_download} %{time_total}',
      url,
    ]);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const [bytes, seconds] = out.trim().split(' ').map(Number);
      if (code !== 0 || bytes !== expectedBytes) reject(new Error(`download failed: ${code} ${out}`));
      else resolve(bytes / MB / seconds!);
    });
  });
}

/** A player's pace for the paced stream: 80 Mbit/s, a high-bitrate film. */
const PACED_RATE = (80 * 1_000_000) / 8;
const PACED_MS = 10_000;

/**
 * Reads the stream at a player's pace for PACED_MS and answers the rate achieved and the longest wait for data
 * (a play-agent blocked by anything would show as a long gap and a lower rate).
 */
async function pacedStream(url: string): Promise<{ rate: number; maxGapMs: number }> {
  const controller = new AbortController();
  const answer = await request(url, { signal: controller.signal });
  const began = performance.now();
  let received = 0;
  let last = began;
  let maxGapMs = 0;
  try {
    for await (const chunk of answer.body) {
      const now = performance.now();
      maxGapMs = Math.max(maxGapMs, now - last);
      received += (chunk as Buffer).length;
      if (now - began >= PACED_MS) break;
      const ahead = (received / PACED_RATE) * 1000 - (now - began);
      if (ahead > 0) await new Promise((resolve) => setTimeout(resolve, ahead));
      last = performance.now();
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    controller.abort();
  }
  return { rate: received / ((performance.now() - began) / 1000), maxGapMs };
}

/** An administrator, a library holding one file, and a player signed in to the play-agent. */
async function prepareStream(
  ports: PortEnv,
  library: string,
  admin: Record<string, string>,
): Promise<string> {
  const entrance = `http://127.0.0.1:${ports.SVC_FRONTEND_PORT}`;
  await scannedBenchLibrary(entrance, library, admin);
  const playAgent = `http://${ports.PLAY_AGENT_LISTEN}`;
  const signedIn = await json(
    playAgent,
    'POST',
    '/Users/AuthenticateByName',
    { Username: 'root', Pw: PASSWORD },
    { 'x-emby-authorization': 'Emby Client="bench", Device="bench", DeviceId="bench", Version="1"' },
  );
  const token = String(signedIn.AccessToken);
  const userId = String((signedIn.User as Json).Id);
  const items = await json(
    playAgent,
    'GET',
    `/Users/${userId}/Items?Recursive=true&IncludeItemTypes=Movie`,
    undefined,
    {
      'x-emby-token': token,
    },
  );
  const item = (items.Items as Json[])[0];
  if (!item) throw new Error('the scan found no movie');
  return `${playAgent}/Videos/${String(item.Id)}/stream?static=true&api_key=${token}`;
}

function databaseOptions(backend: Backend, databaseUrl: string, nameSuffix: string, dataDir: string) {
  const logger = createLogger({ level: 'warn', component: 'bench' });
  return backend === 'postgres'
    ? { name: 'svc_user' as const, mode: 'external' as const, databaseUrl, nameSuffix, dataDir, logger }
    : { name: 'svc_user' as const, mode: 'bundled' as const, dataDir, logger };
}

async function runBackend(
  backend: Backend,
  sessions: number,
  databaseUrl: string,
  library: string,
  log: (line: string) => void,
): Promise<BackendResult> {
  const work = mkdtempSync(path.join(tmpdir(), `svc-bench-report-${backend}-`));
  const dataDir = path.join(work, 'data');
  mkdirSync(dataDir, { recursive: true });
  const suffix = `_bench_report_${randomBytes(3).toString('hex')}`;
  const end = new Date();
  const children: ChildProcess[] = [];
  try {
    // --- the data, written straight into the user service's database before the install starts ------------
    const cache = reportDataCache(backend, sessions, databaseUrl);
    const restored = await cache?.restore({ dataDir, databaseName: `svc_user${suffix}` });
    let generateSeconds: number;
    if (restored) {
      generateSeconds = restored.generateSeconds;
      log(
        `${backend}: reusing the ${(sessions * EVENTS_PER_SESSION).toLocaleString('en')} events generated at ${restored.end} (REPORT_BENCH_CACHE)`,
      );
    } else {
      const database = await openServiceDatabase<UserDatabase>(
        databaseOptions(backend, databaseUrl, suffix, dataDir),
      );
      try {
        await runMigrations(database, userMigrations);
        log(
          `${backend}: generating ${(sessions * EVENTS_PER_SESSION).toLocaleString('en')} events (${sessions.toLocaleString('en')} sessions, 5,000 users, 180 days)`,
        );
        const began = Date.now();
        await generateReportData(database.db, { users: 5000, sessions, days: 180, end, chunk: 50_000 }, log);
        generateSeconds = (Date.now() - began) / 1000;
      } finally {
        await database.close();
      }
      await cache?.save({
        dataDir,
        databaseName: `svc_user${suffix}`,
        generateSeconds,
        end: end.toISOString(),
      });
    }
    let windowEvents: number;
    let count: Timing;
    const database = await openServiceDatabase<UserDatabase>(
      databaseOptions(backend, databaseUrl, suffix, dataDir),
    );
    try {
      const from = new Date(Date.now() - 30 * DAY_MS);
      const countWindow = (db: Kysely<UserDatabase>) =>
        sql<{
          n: number;
        }>`SELECT count(*) AS n FROM activity_log WHERE occurred_at >= ${from} AND occurred_at < now()`.execute(
          db,
        );
      windowEvents = Number((await countWindow(database.db)).rows[0]!.n);
      count = await timed('count(*) of the window', RUNS, () => countWindow(database.db));
    } finally {
      await database.close();
    }

    // --- a standalone install on that database -----------------------------------------------------------------
    const ports = await portEnv();
    const env: Record<string, string> = {
      ...ports,
      SVC_DATA_DIR: dataDir,
      ...(backend === 'postgres'
        ? { SVC_DB_MODE: 'external', SVC_DATABASE_URL: databaseUrl, SVC_DB_NAME_SUFFIX: suffix }
        : { SVC_DB_MODE: 'bundled' }),
    };
    const svc = await startStandalone(env, ports);
    children.push(svc);
    const entrance = `http://127.0.0.1:${ports.SVC_FRONTEND_PORT}`;
    await json(entrance, 'POST', '/api/auth/setup/admin', { username: 'root', password: PASSWORD });
    const login = await json(entrance, 'POST', '/api/auth/login', {
      username: 'root',
      password: PASSWORD,
      client: 'console',
    });
    const admin = { 'x-admin-token': String(login.adminToken) };
    const call = (route: string) =>
      json(entrance, 'GET', `/api/auth/admin/reports/${route}`, undefined, admin);

    const timings: Timing[] = [];
    for (const endpoint of endpoints()) {
      timings.push(await timed(endpoint.name, RUNS, () => call(endpoint.route)));
      const last = timings.at(-1)!;
      log(`  ${endpoint.name}: median ${last.median.toFixed(0)} ms (load average ${last.load.toFixed(2)})`);
    }

    // --- a stream through the play-agent, alone and while report queries run -----------------------------------
    let stream: BackendResult['stream'] = null;
    try {
      const streamUrl = await prepareStream(ports, library, admin);
      await curlSpeed(streamUrl, STREAM_FILE_BYTES); // page cache
      const idle: number[] = [];
      for (let run = 0; run < STREAM_RUNS; run += 1) idle.push(await curlSpeed(streamUrl, STREAM_FILE_BYTES));
      const lanIdle: number[] = [];
      for (let run = 0; run < STREAM_RUNS; run += 1)
        lanIdle.push(await curlSpeed(streamUrl, LAN_BYTES, true));
      const loaded: number[] = [];
      const lanLoaded: number[] = [];
      let running = true;
      let queriesDuring = 0;
      // The console's page: every endpoint, one after the other, for as long as the downloads last.
      const load = (async () => {
        while (running) {
          for (const endpoint of endpoints()) {
            if (!running) break;
            await call(endpoint.route);
            queriesDuring += 1;
          }
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (let run = 0; run < STREAM_RUNS; run += 1)
        loaded.push(await curlSpeed(streamUrl, STREAM_FILE_BYTES));
      for (let run = 0; run < STREAM_RUNS; run += 1)
        lanLoaded.push(await curlSpeed(streamUrl, LAN_BYTES, true));
      const pacedLoaded = await pacedStream(streamUrl);
      running = false;
      await load;
      const pacedIdle = await pacedStream(streamUrl);
      stream = {
        idle,
        loaded,
        lanIdle,
        lanLoaded,
        queriesDuring,
        paced: { idle: pacedIdle, loaded: pacedLoaded },
      };
    } catch (error) {
      log(`  stream check failed: ${(error as Error).message}`);
    }
    return {
      backend,
      events: sessions * EVENTS_PER_SESSION,
      windowEvents,
      generateSeconds,
      count,
      endpoints: timings,
      stream,
    };
  } finally {
    for (const child of children.reverse()) await stop(child, 'SIGINT');
    if (backend === 'postgres') {
      for (const name of SERVICE_DATABASE_NAMES)
        await dropExternalDatabase(databaseUrl, `${name}${suffix}`).catch(() => {});
    }
    rmSync(work, { recursive: true, force: true });
  }
}

function printResult(result: BackendResult): void {
  const goal = (timing: Timing) =>
    result.backend === 'postgres'
      ? timing.name.startsWith('overview (both')
        ? GOAL_OVERVIEW_PG_MS
        : GOAL_ENDPOINT_PG_MS
      : GOAL_ENDPOINT_PGLITE_MS;
  const label = result.backend === 'postgres' ? 'PostgreSQL' : 'PGlite (embedded)';
  console.log(
    `\n${label}: ${result.events.toLocaleString('en')} events generated in ${result.generateSeconds.toFixed(0)} s; last 30 days = ${result.windowEvents.toLocaleString('en')} events`,
  );
  console.log(
    `  ${'endpoint'.padEnd(28)} ${'median'.padStart(8)} ${'min'.padStart(8)} ${'max'.padStart(8)}  x count(*)  load  goal`,
  );
  const row = (timing: Timing, withGoal: boolean) =>
    console.log(
      `  ${timing.name.padEnd(28)} ${`${timing.median.toFixed(0)} ms`.padStart(8)} ${`${timing.min.toFixed(0)} ms`.padStart(8)} ${`${timing.max.toFixed(0)} ms`.padStart(8)}  ${(timing.median / result.count.median).toFixed(1).padStart(9)}x ${timing.load.toFixed(1).padStart(5)}  ${
        withGoal ? `${timing.median <= goal(timing) ? 'ok' : 'MISSED'} (<= ${goal(timing)} ms)` : 'reference'
      }`,
    );
  row(result.count, false);
  for (const timing of result.endpoints) row(timing, true);
  if (result.stream) {
    const idle = median(result.stream.idle);
    const loaded = median(result.stream.loaded);
    const loss = (idle - loaded) / idle;
    const lanIdle = median(result.stream.lanIdle);
    const lanLoaded = median(result.stream.lanLoaded);
    const lanLoss = (lanIdle - lanLoaded) / lanIdle;
    const runs = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');
    console.log(
      `  play-agent stream on a gigabit LAN (curl --limit-rate ${LAN_RATE / 1e6} MB/s, ${LAN_BYTES / MB} MiB, median of ${STREAM_RUNS}): alone ${((lanIdle * MB) / 1e6).toFixed(1)} MB/s (${runs(result.stream.lanIdle)} MiB/s), during report queries ${((lanLoaded * MB) / 1e6).toFixed(1)} MB/s (${runs(result.stream.lanLoaded)} MiB/s): ${(lanLoss * 100).toFixed(1)} % slower — ${lanLoss <= GOAL_STREAM_LOSS ? 'ok' : 'MISSED'} (goal <= 10 %)`,
    );
    // Unlimited on loopback the stream itself keeps both vCPUs busy (curl and the play-agent), so this figure
    // measures how the CPU is shared with the queries, not whether anything waits for them.
    console.log(
      `  play-agent stream unlimited on loopback, CPU-bound (${STREAM_FILE_BYTES / MB} MiB, median of ${STREAM_RUNS}): alone ${idle.toFixed(0)} MB/s (${runs(result.stream.idle)}), during report queries ${loaded.toFixed(0)} MB/s (${runs(result.stream.loaded)}; ${result.stream.queriesDuring} queries ran): ${(loss * 100).toFixed(1)} % slower (CPU sharing, for information)`,
    );
    const paced = result.stream.paced;
    const pacedLoss = (paced.idle.rate - paced.loaded.rate) / paced.idle.rate;
    console.log(
      `  play-agent stream at a player's pace (80 Mbit/s, ${PACED_MS / 1000} s): alone ${(paced.idle.rate / 1e6).toFixed(2)} MB/s, longest wait ${paced.idle.maxGapMs.toFixed(0)} ms; during report queries ${(paced.loaded.rate / 1e6).toFixed(2)} MB/s, longest wait ${paced.loaded.maxGapMs.toFixed(0)} ms: ${(pacedLoss * 100).toFixed(1)} % slower — ${pacedLoss <= GOAL_STREAM_LOSS ? 'ok' : 'MISSED'} (goal <= 10 %)`,
    );
  }
}

export async function benchReport(): Promise<void> {
  const sessions = Number(process.env.REPORT_BENCH_SESSIONS ?? 1_000_000);
  const pgliteSessions = Number(process.env.REPORT_BENCH_PGLITE_SESSIONS ?? sessions);
  const backends = (process.env.REPORT_BENCH_BACKENDS ?? 'postgres,pglite').split(',') as Backend[];
  const databaseUrl =
    process.env.SVC_BENCH_DATABASE_URL ??
    process.env.SVC_TEST_DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres';
  const work = mkdtempSync(path.join(tmpdir(), 'svc-bench-report-'));
  const results: BackendResult[] = [];
  const log = (line: string) => console.log(line);
  try {
    chmodSync(work, 0o755);
    const library = path.join(work, 'library');
    const folder = path.join(library, 'Bench Movie (2020)');
    mkdirSync(folder, { recursive: true });
    const fd = openSync(path.join(folder, 'Bench Movie (2020).mkv'), 'w');
    const piece = randomBytes(4 * MB);
    for (let written = 0; written < STREAM_FILE_BYTES; written += piece.length) writeSync(fd, piece);
    closeSync(fd);
    console.log(
      `playback report benchmark: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), load average ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}`,
    );
    for (const backend of backends) {
      results.push(
        await runBackend(
          backend,
          backend === 'pglite' ? pgliteSessions : sessions,
          databaseUrl,
          library,
          log,
        ),
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  for (const result of results) printResult(result);
  console.log(
    `\nload average at the end: ${loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}`,
  );
}
