import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { postgresBinDir } from '../private-postgres.js';
import type { Machine } from './lab.js';
import { IP, spawnIn, type NsProcess } from './ns-process.js';

const run = promisify(execFile);

/*
 * PostgreSQL and Redis of a lab, started inside one machine of the private network and listening only on its
 * private address (their usual ports 5432 and 6379: a namespace has ports of its own). Nothing forwards them
 * from the root namespace, so whatever cannot route to that address cannot reach them.
 */

export interface LabPostgres {
  /** postgres://postgres@<private address>:5432/postgres (trust for the private /24 only). */
  url: string;
  remove(): Promise<void>;
}

export async function startLabPostgres(machine: Machine, address: string): Promise<LabPostgres> {
  const bin = postgresBinDir();
  if (!bin)
    throw new Error(
      'PostgreSQL server programs (initdb, pg_ctl under /usr/lib/postgresql/*/bin) are missing',
    );
  const folder = mkdtempSync(path.join(tmpdir(), 'svc-lab-pg-'));
  const dataDir = path.join(folder, 'data');
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  chownSync(folder, uid, gid);
  const asPostgres = async (program: string, args: string[]) =>
    run(
      IP,
      ['netns', 'exec', machine.netns, 'runuser', '-u', 'postgres', '--', path.join(bin, program), ...args],
      {
        timeout: 180_000,
      },
    );
  const pgCtl = (...args: string[]) =>
    asPostgres('pg_ctl', ['-D', dataDir, '-l', path.join(folder, 'server.log'), '-w', '-t', '120', ...args]);
  let running = false;
  const remove = async () => {
    if (running) await pgCtl('-m', 'immediate', 'stop').catch(() => undefined);
    running = false;
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    await asPostgres('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'reject', '--no-sync', '-E', 'UTF8']);
    // Trust on the private network only; every other source (there is none routed here) is rejected.
    const subnet = `${address.split('.').slice(0, 3).join('.')}.0/24`;
    appendFileSync(path.join(dataDir, 'pg_hba.conf'), `host all all ${subnet} trust\n`);
    const options = [
      '-p 5432',
      `-c listen_addresses=${address}`,
      `-c unix_socket_directories=${folder}`,
      '-c fsync=off',
      '-c max_connections=200',
    ].join(' ');
    await pgCtl('-o', options, 'start');
    running = true;
  } catch (error) {
    await remove();
    throw error;
  }
  return { url: `postgres://postgres@${address}:5432/postgres`, remove };
}

export interface LabRedis {
  url: string;
  process: NsProcess;
}

export async function startLabRedis(machine: Machine, address: string): Promise<LabRedis> {
  const redis = spawnIn(
    machine,
    'redis',
    [
      'redis-server',
      '--bind',
      address,
      '--port',
      '6379',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'no',
    ],
    { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  );
  await redis.waitForLog(/Ready to accept connections/);
  return { url: `redis://${address}:6379`, process: redis };
}
