import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../../src/cli/admin.js';
import { openServiceDatabase } from '../../../src/platform/db/index.js';
import { createLogger } from '../../../src/platform/logger.js';
import { PasswordHasher } from '../../../src/services/user/auth/password-hasher.js';
import type { UserDatabase } from '../../../src/services/user/user.db.js';
import { installBackends } from '../../support/install-backends.js';

describe.each(installBackends())('svc admin create on $label', (backend) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-admin-cli-'));
  const env = { ...backend.env, SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' };
  afterAll(async () => {
    await backend.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const run = async (args: string[], stdin = '') => {
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await runAdmin(args, { stdin: Readable.from([stdin]), stdout, env });
    return out;
  };

  const usersInDatabase = async () => {
    const database = await openServiceDatabase<UserDatabase>({
      name: 'svc_user',
      mode: backend.env.SVC_DB_MODE === 'external' ? 'external' : 'bundled',
      dataDir,
      databaseUrl: backend.env.SVC_DATABASE_URL,
      nameSuffix: backend.env.SVC_DB_NAME_SUFFIX,
      logger: createLogger({ level: 'silent', component: 'test' }),
    });
    try {
      return await database.db.selectFrom('users').selectAll().orderBy('username').execute();
    } finally {
      await database.close();
    }
  };

  it('creates administrators with the password from stdin, also when one exists', async () => {
    const out = await run(['create', '--username', 'root', '--password-stdin'], 'root password one\n');
    expect(out).toMatch(/^created administrator root \([0-9a-f-]{36}\)\n$/);
    await run(
      ['create', '--username=ops', '--display-name', 'Operations', '--password-stdin'],
      'ops password',
    );
    const users = await usersInDatabase();
    expect(users.map((u) => [u.username, u.display_name, u.role])).toEqual([
      ['ops', 'Operations', 'admin'],
      ['root', 'root', 'admin'],
    ]);
    const hasher = new PasswordHasher();
    expect(await hasher.verify('root password one', users[1]!.password_hash)).toBe(true);
    expect(await hasher.verify('ops password', users[0]!.password_hash)).toBe(true);
  });

  it('refuses a taken name, bad input and a missing terminal', async () => {
    await expect(
      run(['create', '--username', 'ROOT', '--password-stdin'], 'another password'),
    ).rejects.toThrow(/already taken/);
    await expect(run(['create', '--username', 'new', '--password-stdin'], 'short\n')).rejects.toThrow(
      /8–256/,
    );
    await expect(
      run(['create', '--username', 'bad name', '--password-stdin'], 'long password'),
    ).rejects.toThrow(/user name/);
    await expect(run(['create', '--password-stdin'], 'long password')).rejects.toThrow(
      /--username is required/,
    );
    await expect(run(['create', '--username', 'new', '--bogus'], 'long password')).rejects.toThrow(
      /unknown argument/,
    );
    await expect(run(['delete', '--username', 'root'])).rejects.toThrow(/usage/);
    // Without --password-stdin it prompts, which needs a terminal.
    await expect(run(['create', '--username', 'new'])).rejects.toThrow(/--password-stdin/);
    expect((await usersInDatabase()).map((u) => u.username)).toEqual(['ops', 'root']);
  });
});
