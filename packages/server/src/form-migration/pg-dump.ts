import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';

/**
 * The libpq variables of a postgres:// URL for one database, so neither the password nor the URL shows up in
 * the process list.
 */
export function libpqEnvironment(databaseUrl: string, database: string): Record<string, string> {
  const url = new URL(databaseUrl);
  const decode = (text: string) => decodeURIComponent(text);
  const env: Record<string, string> = {
    PGHOST: url.searchParams.get('host') ?? (url.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost'),
    PGPORT: url.searchParams.get('port') ?? (url.port || '5432'),
    PGDATABASE: database,
  };
  const user = url.username ? decode(url.username) : url.searchParams.get('user');
  if (user) env.PGUSER = user;
  const password = url.password ? decode(url.password) : url.searchParams.get('password');
  if (password) env.PGPASSWORD = password;
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode) env.PGSSLMODE = sslmode;
  return env;
}

function run(program: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new Error(
          error.code === 'ENOENT'
            ? `${program} was not found: install the PostgreSQL client programs (its major version at least the server's)`
            : `${program} could not start: ${error.message}`,
        ),
      );
    });
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `${program} failed (exit ${code ?? 'signal'}): ${errors.trim().split('\n').slice(-3).join(' ')}`,
          ),
        );
    });
  });
}

/** `pg_dump --format=custom` of one database into `file`; returns its size in bytes. */
export async function dumpDatabase(databaseUrl: string, database: string, file: string): Promise<number> {
  await run(
    'pg_dump',
    ['--format=custom', '--no-owner', `--file=${file}`],
    libpqEnvironment(databaseUrl, database),
  );
  return (await stat(file)).size;
}

/** `pg_restore` of a custom-format dump into an existing, empty database. */
export async function restoreDatabase(databaseUrl: string, database: string, file: string): Promise<void> {
  await run(
    'pg_restore',
    ['--no-owner', '--exit-on-error', '--single-transaction', `--dbname=${database}`, file],
    libpqEnvironment(databaseUrl, database),
  );
}
