import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import type { Logger } from '../logger.js';
import { DatabaseError, describeError, errorCode, oneLine } from './errors.js';
import { acquireDataDirLock, createFileOnce, type DataDirLock } from './lock-file.js';
import { syncPaths, syncTree } from './durable-files.js';
import { Mutex, PGliteSession, quoteIdentifier } from './pglite-dialect.js';
import { installedPglite, runInitdbChild } from './pglite-initdb.js';
import { pgliteStartParams, WASM_FLAGS } from './pglite-settings.js';
import { builtTemplateDir, checkTemplate, unpackTemplate } from './pglite-template.js';
import { PGLITE_PARSERS } from './value-types.js';
import { startupStep } from '../startup-progress.js';

/*
 * Bundled mode keeps the service databases of one process in ONE embedded PostgreSQL (PGlite) instance, each
 * database a schema named after it: an instance costs its WebAssembly heap, compiled code and shared buffers
 * (100+ MB), a schema next to nothing. The folder of an instance (a "cluster", PostgreSQL's word for a data
 * directory) is <dataDir>/db/<name of the first database opened in it>.
 *
 * Where a database lives is decided once and recorded in <dataDir>/db/<database>.cluster (one line: the
 * cluster's folder name), created atomically, so every later start, in whatever process, finds it in the
 * same place. A database without that file goes into the cluster this process already has open in the same
 * data folder, else into a new cluster named after itself. Hence the standalone edition's control process
 * keeps svc_config, svc_user and svc_media in db/svc_config, and the storage process yiyi_storage in
 * db/yiyi_storage; roles run as separate processes get one cluster each.
 */

let wasmFlagsSet = false;
function keepWasmCodeSmall(): void {
  if (wasmFlagsSet) return;
  wasmFlagsSet = true;
  for (const flag of WASM_FLAGS) setFlagsFromString(flag);
}

/** File beside the clusters that records where a database lives. */
export function clusterMarkerPath(dbRoot: string, database: string): string {
  return path.join(dbRoot, `${database}.cluster`);
}

const CLUSTER_NAME = /^[a-z0-9_]{1,63}$/;

interface NodeFsStream {
  nfd?: number;
  node: unknown;
}

interface NodeFsModule {
  realPath(node: unknown): string;
  tryFSOperation<T>(operation: () => T): T;
  stream_ops: { fsync?: (stream: NodeFsStream) => void };
}

/**
 * PGlite's Node filesystem without a sync operation makes every fsync() of PostgreSQL succeed without
 * touching the disk. This one gives it a real one: fsync of the file (or of the directory, which it opens
 * for the purpose), with Node's error turned into the errno PostgreSQL expects.
 */
class DurableNodeFS extends NodeFS {
  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(...args);
    const installSync = (module: unknown) => {
      const nodefs = (module as { NODEFS?: NodeFsModule }).NODEFS;
      if (!nodefs?.stream_ops || typeof nodefs.realPath !== 'function') {
        throw new Error('this PGlite build has no NODEFS to make durable');
      }
      nodefs.stream_ops.fsync = (stream) =>
        nodefs.tryFSOperation(() => {
          if (typeof stream.nfd === 'number') {
            fsyncSync(stream.nfd);
            return;
          }
          const fd = openSync(nodefs.realPath(stream.node), 'r');
          try {
            fsyncSync(fd);
          } finally {
            closeSync(fd);
          }
        });
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), installSync] } };
  }
}

/** Where this process has a cluster open: absolute folder → cluster. */
const clusters = new Map<string, Cluster>();
/** Opening and closing decide where databases live and which instances run: one decision at a time. */
const decisions = new Mutex();

async function decide<T>(fn: () => Promise<T>): Promise<T> {
  await decisions.acquire();
  try {
    return await fn();
  } finally {
    decisions.release();
  }
}

/** One running PGlite instance and the databases (schemas) of this process open in it. */
class Cluster {
  /** Databases with an open handle. */
  readonly open = new Set<string>();

  constructor(
    readonly name: string,
    readonly dir: string,
    readonly dbRoot: string,
    readonly session: PGliteSession,
    private readonly lock: DataDirLock,
  ) {}

  async close(): Promise<void> {
    try {
      if (!this.session.pglite.closed) await this.session.pglite.close();
    } finally {
      this.lock.release();
    }
  }
}

export interface BundledDatabase {
  session: PGliteSession;
  /** The schema holding the database. */
  schema: string;
  /** The cluster folder. */
  dir: string;
  /** Closes the database; the instance stops with the last database of this process in it. Idempotent. */
  release: () => Promise<void>;
}

/**
 * Opens a service database of bundled mode: finds (or decides) its cluster, starts that instance unless this
 * process already runs it, and makes sure its schema exists.
 */
export async function openBundledDatabase(
  name: string,
  dataDir: string,
  logger: Logger,
): Promise<BundledDatabase> {
  return decide(async () => {
    const dbRoot = path.resolve(dataDir, 'db');
    try {
      mkdirSync(dbRoot, { recursive: true });
    } catch (err) {
      throw new DatabaseError(`cannot create data folder ${dbRoot} for ${name}: ${describeError(err)}`, {
        cause: err,
      });
    }
    const clusterName = await locate(dbRoot, name);
    const dir = path.join(dbRoot, clusterName);
    let cluster = clusters.get(dir);
    if (cluster?.open.has(name)) {
      throw new DatabaseError(
        `database ${name} is in use by process ${process.pid} (this process); close it before opening it again`,
      );
    }
    const started = !cluster;
    cluster ??= await startCluster(dbRoot, clusterName, name, logger);
    try {
      await createSchema(cluster.session, name);
    } catch (err) {
      if (started) await cluster.close().catch(() => undefined);
      throw new DatabaseError(`cannot create schema ${name} in ${dir}: ${describeError(err)}`, {
        cause: err,
      });
    }
    if (started) clusters.set(dir, cluster);
    cluster.open.add(name);

    const opened = cluster;
    let releasing: Promise<void> | undefined;
    return {
      session: opened.session,
      schema: name,
      dir,
      release: () =>
        (releasing ??= decide(async () => {
          opened.open.delete(name);
          if (opened.open.size > 0) return;
          clusters.delete(opened.dir);
          await opened.close();
        })),
    };
  });
}

/** The cluster folder name of a database: as recorded, else decided now and recorded. */
async function locate(dbRoot: string, name: string): Promise<string> {
  const marker = clusterMarkerPath(dbRoot, name);
  const recorded = readMarker(marker);
  if (recorded) return recorded;
  const candidate = [...clusters.values()].find((c) => c.dbRoot === dbRoot)?.name ?? name;
  if (createFileOnce(marker, `${candidate}\n`, 'database location file')) {
    await syncPaths([marker, dbRoot]);
    return candidate;
  }
  // another process recorded it first
  const winner = readMarker(marker);
  if (winner) return winner;
  // Empty: a crash cut its writing short (only possible where the filesystem has no hard links).
  const temp = `${marker}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, `${candidate}\n`);
    renameSync(temp, marker);
  } catch (err) {
    rmSync(temp, { force: true });
    throw new DatabaseError(`cannot write database location file ${marker}: ${describeError(err)}`, {
      cause: err,
    });
  }
  await syncPaths([marker, dbRoot]);
  return candidate;
}

function readMarker(marker: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(marker, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return undefined;
    throw new DatabaseError(`cannot read database location file ${marker}: ${describeError(err)}`, {
      cause: err,
    });
  }
  const name = text.trim();
  if (name === '') return undefined;
  if (!CLUSTER_NAME.test(name)) {
    throw new DatabaseError(
      `database location file ${marker} names '${oneLine(name).slice(0, 80)}', not a folder in ${path.dirname(marker)}`,
    );
  }
  return name;
}

async function startCluster(
  dbRoot: string,
  clusterName: string,
  database: string,
  logger: Logger,
): Promise<Cluster> {
  const dir = path.join(dbRoot, clusterName);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new DatabaseError(`cannot create data folder ${dir} for ${database}: ${describeError(err)}`, {
      cause: err,
    });
  }
  const lock = acquireDataDirLock(dir, database);
  if (lock.takenOverFrom !== undefined) {
    logger.warn(
      { db: database, lockFile: lock.path },
      `took over the lock of process ${lock.takenOverFrom}, which is gone`,
    );
  }
  try {
    if (!existsSync(path.join(dir, 'PG_VERSION'))) {
      startupStep(`creating the embedded database ${clusterName} (first start only)`);
      await initCluster(dbRoot, clusterName, logger);
    }
    keepWasmCodeSmall();
    const pglite = await PGlite.create({
      fs: new DurableNodeFS(dir),
      parsers: PGLITE_PARSERS,
      startParams: pgliteStartParams(),
    });
    return new Cluster(clusterName, dir, dbRoot, new PGliteSession(pglite), lock);
  } catch (err) {
    lock.release();
    throw new DatabaseError(
      `cannot open embedded PostgreSQL for ${database} in ${dir}: ${describeError(err)}`,
      { cause: err },
    );
  }
}

async function createSchema(session: PGliteSession, schema: string): Promise<void> {
  await session.mutex.acquire();
  try {
    await session.pglite.exec(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
  } finally {
    session.mutex.release();
  }
}

/**
 * Creates a new cluster: a copy of the build's template (pglite-template.ts) when it was made by this PGlite,
 * else PostgreSQL's initdb in a short-lived child process (pglite-initdb.ts). Either way the files go into a
 * scratch folder, are synced to disk (PGlite never syncs) and are then moved into the cluster folder,
 * PG_VERSION last: a folder with PG_VERSION is always a whole cluster.
 */
export async function initCluster(
  dbRoot: string,
  clusterName: string,
  logger: Logger,
  templateDir = builtTemplateDir(),
): Promise<void> {
  const dir = path.join(dbRoot, clusterName);
  mkdirSync(dir, { recursive: true });
  const pglite = installedPglite();
  const template = checkTemplate(templateDir, pglite?.identity);
  if (!template.usable && !template.missing) {
    logger.warn(
      { dir, templateDir, reason: template.reason },
      'not using the database template; running initdb',
    );
  }
  if (!template.usable && !pglite) {
    logger.warn(
      { dir },
      'cannot find the PGlite package for a child process; creating the database in process',
    );
    return;
  }
  const scratch = path.join(dbRoot, `.${clusterName}.init-${randomBytes(4).toString('hex')}`);
  const started = Date.now();
  let source: 'template' | 'initdb' = 'initdb';
  try {
    if (template.usable) {
      try {
        await unpackTemplate(templateDir, template.manifest, scratch);
        source = 'template';
      } catch (err) {
        logger.warn(
          { dir, templateDir, reason: describeError(err) },
          'the database template could not be copied; running initdb',
        );
        rmSync(scratch, { recursive: true, force: true });
      }
    }
    if (source === 'initdb') {
      if (!pglite) throw new Error('cannot find the PGlite package for initdb');
      await runInitdbChild(pglite.entry, scratch);
    }
    await syncTree(scratch);
    if (!existsSync(path.join(scratch, 'PG_VERSION'))) throw new Error(`${source} left no PG_VERSION`);
    const names = readdirSync(scratch).filter((n) => n !== 'PG_VERSION');
    for (const entryName of [...names, 'PG_VERSION']) {
      const target = path.join(dir, entryName);
      // left over by a move cut short (no PG_VERSION yet, so no database): PostgreSQL's own files only
      rmSync(target, { recursive: true, force: true });
      renameSync(path.join(scratch, entryName), target);
    }
    await syncPaths([dir]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  logger.info({ dir, ms: Date.now() - started, source }, 'embedded database created');
}
