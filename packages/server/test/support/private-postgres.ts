import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePorts } from './ports.js';

const run = promisify(execFile);

/** A PostgreSQL cluster of its own in a temp folder, on a free loopback port, that a test may stop. */
export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication, loopback only). */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: the server ends every session and shuts down. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it (if running) and removes the folder. */
  remove(): Promise<void>;
}

/** The newest installed PostgreSQL's bin folder, or undefined when no initdb is installed. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(path.join(root, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

/**
 * Outside CI a machine without PostgreSQL's server programs skips the tests that need a private cluster; in CI
 * nothing is skipped and startPrivatePostgres fails with a message that says what is missing.
 */
export const skipWithoutPostgresServer = postgresBinDir() === undefined && process.env.CI !== 'true';

/** initdb refuses to run as root: as root, the cluster belongs to the postgres user and runs as it. */
async function ownerOf(folder: string): Promise<string[]> {
  if (process.getuid?.() !== 0) return [];
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  chownSync(folder, uid, gid);
  return ['runuser', '-u', 'postgres', '--'];
}

/**
 * Creates and starts a private cluster. Throws with a clear message when PostgreSQL's server programs
 * are not installed (the caller decides whether that may skip a test; in CI it may not).
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) {
    throw new Error(
      'PostgreSQL server programs (initdb, pg_ctl under /usr/lib/postgresql/*/bin) are not installed: ' +
        'install the postgresql package to run the database outage test',
    );
  }
  const folder = mkdtempSync(path.join(tmpdir(), 'svc-private-pg-'));
  const dataDir = path.join(folder, 'data');
  const [port] = await freePorts(1);
  const as = await ownerOf(folder);
  const exec = async (program: string, args: string[]) => {
    const [command, ...rest] = [...as, path.join(bin, program), ...args];
    await run(command!, rest, { timeout: 120_000 });
  };
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${folder}`,
    '-c fsync=off',
    '-c max_connections=100',
  ].join(' ');
  const pgCtl = (...args: string[]) =>
    exec('pg_ctl', ['-D', dataDir, '-l', path.join(folder, 'server.log'), '-w', '-t', '60', ...args]);
  let running = false;

  const cluster: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port: port!,
    stop: async () => {
      await pgCtl('-m', 'fast', 'stop');
      running = false;
    },
    start: async () => {
      await pgCtl('-o', options, 'start');
      running = true;
    },
    remove: async () => {
      if (running) await pgCtl('-m', 'immediate', 'stop').catch(() => undefined);
      running = false;
      rmSync(folder, { recursive: true, force: true });
    },
  };
  try {
    await exec('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
    await cluster.start();
  } catch (error) {
    await cluster.remove();
    throw error;
  }
  return cluster;
}
