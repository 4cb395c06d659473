import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_KEY_FILE, PUBLIC_KEY_FILE } from '../../../src/cli/license.js';
import { SettingsError, loadSettings } from '../../../src/platform/settings.js';
import { parsePublicKey, verifyCode, verifyLease } from '../../../src/services/config/licenses/lease.js';
import { runLicenseCli } from './license-cli-run.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2030-01-01T00:00:00.000Z');

const run = (args: string[]) => runLicenseCli(args, () => NOW);

/** The real command line (main.ts dispatch and exit code), run from the sources. */
function spawnSvc(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'packages/server/src/cli/main.ts'), ...args],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('svc license (publisher tool)', () => {
  let dir: string;
  let keyFile: string;
  let publicKeyLine: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-license-cli-'));
    const keygen = await run(['keygen', '--out', path.join(dir, 'keys')]);
    expect(keygen.code).toBe(0);
    keyFile = path.join(dir, 'keys', PRIVATE_KEY_FILE);
    publicKeyLine = /^SVC_LICENSE_PUBLIC_KEY=(\S+)$/m.exec(keygen.stdout)?.[1] ?? '';
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keygen writes the key pair (private key 0600) and prints the one-line public key', () => {
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const publicPem = readFileSync(path.join(dir, 'keys', PUBLIC_KEY_FILE), 'utf8');
    expect(publicPem).toContain('-----BEGIN PUBLIC KEY-----');
    // The PEM file and the printed line are the same key.
    expect(parsePublicKey(publicKeyLine).equals(parsePublicKey(publicPem))).toBe(true);
  });

  it('keygen never overwrites a publisher key', async () => {
    const before = readFileSync(keyFile, 'utf8');
    const again = await run(['keygen', '--out', path.join(dir, 'keys')]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(keyFile, 'utf8')).toBe(before);
  });

  it('issue prints a lease signed with the key, valid for --days plus --grace-days', async () => {
    const issued = await run([
      'issue',
      '--key',
      keyFile,
      '--edition',
      'standalone',
      '--max-storage',
      '1',
      '--max-play-agent',
      '2',
      '--days',
      '30',
      '--grace-days=7',
      '--install-id',
      'inst-abc',
    ]);
    expect(issued.code).toBe(0);
    expect(issued.stderr).toBe('');
    const payload = verifyLease(issued.stdout.trim(), parsePublicKey(publicKeyLine));
    expect(payload).toEqual({
      licenseId: expect.stringMatching(/^lic-[a-z0-9]{16}$/) as string,
      kind: 'lease',
      edition: 'STANDALONE',
      maxStorageNodes: 1,
      maxPlayAgentNodes: 2,
      validFrom: new Date(NOW).toISOString(),
      validUntil: new Date(NOW + 30 * DAY_MS).toISOString(),
      graceUntil: new Date(NOW + 37 * DAY_MS).toISOString(),
      issuedAt: new Date(NOW).toISOString(),
      installId: 'inst-abc',
    });
  });

  it('code prints a one-time code with a fresh code id around a lease', async () => {
    const args = [
      'code',
      '--key',
      keyFile,
      '--edition',
      'DISTRIBUTED',
      '--max-storage',
      '3',
      '--max-play-agent',
      '4',
      '--days',
      '365',
      '--grace-days',
      '0',
      '--license-id',
      'lic-customer-7',
    ];
    const first = await run(args);
    const second = await run(args);
    expect(first.code).toBe(0);
    const key = parsePublicKey(publicKeyLine);
    const a = verifyCode(first.stdout.trim(), key);
    const b = verifyCode(second.stdout.trim(), key);
    expect(a.codeId).toMatch(/^code-[a-z0-9]{16}$/);
    expect(a.codeId).not.toBe(b.codeId);
    expect(a.payload).toMatchObject({
      licenseId: 'lic-customer-7',
      kind: 'lease',
      edition: 'DISTRIBUTED',
      maxStorageNodes: 3,
      maxPlayAgentNodes: 4,
      graceUntil: new Date(NOW + 365 * DAY_MS).toISOString(),
    });
  });

  it('upgrade prints an edition-upgrade lease for DISTRIBUTED (365 + 30 days unless told)', async () => {
    const upgrade = await run([
      'upgrade',
      '--key',
      keyFile,
      '--license-id',
      'lic-customer-7',
      '--max-storage',
      '10',
      '--max-play-agent',
      '20',
    ]);
    expect(upgrade.code).toBe(0);
    expect(verifyLease(upgrade.stdout.trim(), parsePublicKey(publicKeyLine))).toMatchObject({
      licenseId: 'lic-customer-7',
      kind: 'edition-upgrade',
      edition: 'DISTRIBUTED',
      maxStorageNodes: 10,
      maxPlayAgentNodes: 20,
      validUntil: new Date(NOW + 365 * DAY_MS).toISOString(),
      graceUntil: new Date(NOW + 395 * DAY_MS).toISOString(),
    });
  });

  it('refuses bad options with one line on stderr and exit code 2, printing nothing', async () => {
    const lease = ['--key', 'k.pem', '--max-storage', '1', '--max-play-agent', '1', '--days', '1'];
    for (const args of [
      [],
      ['sign'],
      ['keygen'],
      ['issue', ...lease, '--grace-days', '1'],
      ['issue', ...lease, '--grace-days', '1', '--edition', 'GOLD'],
      ['issue', ...lease, '--grace-days', '-1', '--edition', 'STANDALONE'],
      ['code', ...lease, '--grace-days', 'x', '--edition', 'STANDALONE'],
      ['code', ...lease, '--grace-days', '1', '--edition', 'STANDALONE', '--colour', 'red'],
      ['code', ...lease, '--grace-days', '1', '--edition', 'STANDALONE', '--install-id', 'a b'],
      ['code', ...lease, '--grace-days', '1', '--edition', 'STANDALONE', '--days', '2'],
      ['upgrade', '--key', 'k.pem', '--max-storage', '1', '--max-play-agent', '1'],
      ['upgrade', '--key', 'k.pem', '--license-id', 'lic-1', '--max-storage', '1'],
      ['upgrade', '--key', 'k.pem', '--license-id', 'lic-1', '--max-storage', '1', '--max-play-agent'],
    ]) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });

  it('answers 1 with one line when the key file is missing or not an Ed25519 private key', async () => {
    for (const key of [path.join(dir, 'missing.pem'), path.join(dir, 'keys', PUBLIC_KEY_FILE)]) {
      const result = await run([
        'issue',
        '--key',
        key,
        '--edition',
        'STANDALONE',
        '--max-storage',
        '0',
        '--max-play-agent',
        '0',
        '--days',
        '1',
        '--grace-days',
        '0',
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('is reachable as `svc license` with the same exit codes', async () => {
    const bad = await spawnSvc(['license', 'issue', '--edition', 'GOLD']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    const good = await spawnSvc([
      'license',
      'upgrade',
      '--key',
      keyFile,
      '--license-id',
      'lic-1',
      '--max-storage',
      '1',
      '--max-play-agent',
      '1',
    ]);
    expect(good.stderr).toBe('');
    expect(good.code).toBe(0);
    expect(verifyLease(good.stdout.trim(), parsePublicKey(publicKeyLine)).kind).toBe('edition-upgrade');
  });
});

describe('SVC_LICENSE_PUBLIC_KEY', () => {
  const { publicKey } = generateKeyPairSync('ed25519');
  const line = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const read = (value: string) => loadSettings({ SVC_LICENSE_PUBLIC_KEY: value }, tmpdir()).licensePublicKey;

  it('is unset by default, and takes the base64 line, a PEM, or a PEM with \\n written for line breaks', () => {
    expect(loadSettings({}, tmpdir()).licensePublicKey).toBeUndefined();
    expect(read(line)).toBe(line);
    expect(read(pem)).toBe(line);
    expect(read(pem.trim().replace(/\n/g, '\\n'))).toBe(line);
  });

  it('stops start-up with one line naming the variable for anything but an Ed25519 public key', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
      format: 'pem',
      type: 'spki',
    });
    for (const value of ['not a key', `${line.slice(0, -6)}AAAA==`, rsa.toString()]) {
      expect(() => read(value)).toThrow(SettingsError);
      expect(() => read(value)).toThrow(/^SVC_LICENSE_PUBLIC_KEY: /);
    }
  });
});
