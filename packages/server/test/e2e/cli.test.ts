import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSvc } from '../support/svc-process.js';

const folders: string[] = [];
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[], env: Record<string, string> = {}) {
  const svc = runSvc(args, env);
  const { code } = await svc.exited;
  return { code, stdout: svc.stdout(), stderr: svc.stderr() };
}

describe('svc command line', () => {
  it('prints its usage', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    for (const command of [
      'standalone',
      'role control|user|media|edge',
      'node storage|play-agent',
      'migrate',
    ]) {
      expect(stdout).toContain(command);
    }
  });

  it('refuses an unknown command or role with one line and exit code 2', async () => {
    for (const args of [['fly'], ['role', 'frontend'], ['node', 'gpu']]) {
      const { code, stderr } = await run(args);
      expect(code).toBe(2);
      expect(stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('migrate applies every database once, then finds them up to date', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-migrate-'));
    folders.push(dataDir);
    const first = await run(['migrate'], { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn' });
    expect(first.code).toBe(0);
    for (const name of ['svc_user', 'svc_media', 'svc_config', 'yiyi_storage']) {
      expect(first.stdout).toMatch(new RegExp(`^${name}: applied V001__`, 'm'));
    }
    const second = await run(['migrate'], { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn' });
    expect(second.code).toBe(0);
    expect(second.stdout.match(/up to date/g)).toHaveLength(4);
    const unknown = await run(['migrate', 'svc_nothing'], { SVC_DATA_DIR: dataDir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown database svc_nothing/);
  });
});
