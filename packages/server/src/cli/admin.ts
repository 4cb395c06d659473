import { openConfiguredDatabase } from '../runtime/configured-database.js';
import { newPasswordSchema, usernameSchema } from '@svc/contracts';
import { systemClock } from '../platform/cache/index.js';
import { runMigrations } from '../platform/db/index.js';
import { AppError } from '../platform/http/errors.js';
import { createLogger } from '../platform/logger.js';
import { loadSettings } from '../platform/settings.js';
import { PasswordHasher } from '../services/user/auth/password-hasher.js';
import { SetupService } from '../services/user/accounts/setup.service.js';
import type { UserDatabase } from '../services/user/user.db.js';
import { userMigrations } from '../services/user/migrations/index.js';
import { transactor, userRepositories } from '../services/user/user-repositories.js';

const USAGE = 'usage: svc admin create --username NAME [--display-name NAME] [--password-stdin]';

export interface AdminIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stdout: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

interface CreateOptions {
  username: string;
  displayName?: string;
  passwordStdin: boolean;
}

function parseCreate(args: string[]): CreateOptions {
  let username: string | undefined;
  let displayName: string | undefined;
  let passwordStdin = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = () => {
      const next = inline ?? args[++i];
      if (next === undefined) throw new Error(`${flag} needs a value; ${USAGE}`);
      return next;
    };
    if (flag === '--username') username = value();
    else if (flag === '--display-name') displayName = value();
    else if (flag === '--password-stdin' && inline === undefined) passwordStdin = true;
    else throw new Error(`unknown argument '${arg}'; ${USAGE}`);
  }
  if (username === undefined) throw new Error(`--username is required; ${USAGE}`);
  return { username, displayName, passwordStdin };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}

/** Reads one line from a terminal without echoing it. */
function promptHidden(question: string, io: AdminIo): Promise<string> {
  const { stdin, stdout } = io;
  stdout.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      stdin.removeListener('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      stdout.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003' || char === '\u0004') return finish(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.setRawMode?.(true);
    stdin.on('data', onData);
    stdin.resume();
  });
}

async function readPassword(options: CreateOptions, io: AdminIo): Promise<string> {
  if (options.passwordStdin) return (await readAll(io.stdin)).replace(/\r?\n$/, '');
  if (!io.stdin.isTTY)
    throw new Error('no terminal to ask for the password: pipe it in with --password-stdin');
  const first = await promptHidden('Password: ', io);
  const second = await promptHidden('Repeat the password: ', io);
  if (first !== second) throw new Error('the passwords differ');
  return first;
}

/**
 * `svc admin create`: creates an administrator in the configured svc_user database (opened like
 * `svc migrate` does; a bundled database must not be in use by a running service). Works also when
 * administrators exist; refuses a name that is taken.
 */
export async function runAdmin(
  args: string[],
  io: AdminIo = { stdin: process.stdin, stdout: process.stdout, env: process.env },
): Promise<void> {
  const [command, ...rest] = args;
  if (command !== 'create') throw new Error(USAGE);
  const options = parseCreate(rest);
  const username = usernameSchema.safeParse(options.username);
  if (!username.success) throw new Error('the user name must be 1–64 letters, digits or . _ - @');
  const password = newPasswordSchema.safeParse(await readPassword(options, io));
  if (!password.success) throw new Error('the password must be 8–256 characters long');

  const settings = loadSettings(io.env);
  const logger = createLogger({ level: settings.logLevel, component: 'admin' });
  const database = await openConfiguredDatabase<UserDatabase>(settings, 'svc_user', logger);
  try {
    await runMigrations(database, userMigrations);
    const setup = new SetupService(
      userRepositories(database.db).accounts,
      transactor(database.db),
      new PasswordHasher(),
      systemClock,
    );
    const row = await setup.createAdminFromCommandLine({
      username: username.data,
      password: password.data,
      displayName: options.displayName,
    });
    io.stdout.write(`created administrator ${row.username} (${row.id})\n`);
  } catch (error) {
    if (error instanceof AppError) throw new Error(error.message);
    throw error;
  } finally {
    await database.close();
  }
}
