import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { proxyOptionsFromArgs } from '../../src/cli/proxy.js';
import { caddySites } from '../../src/proxy-sites/index.js';

const run = promisify(execFile);

/** The generated Caddyfile is checked by Caddy itself (Debian package `caddy`), for both topologies. */
describe('generated Caddy sites', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-caddy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([['standalone'], ['distributed']])(
    'pass caddy validate (%s)',
    async (topology) => {
      const certificate = path.join(dir, 'cert.pem');
      const key = path.join(dir, 'key.pem');
      await run('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=media.example.com',
        '-keyout',
        key,
        '-out',
        certificate,
      ]);
      const options = proxyOptionsFromArgs([
        '--console-name',
        'media.example.com',
        '--playback-name',
        'play.example.com',
        '--endpoint-token',
        'svc_ept_0123456789abcdef',
        '--topology',
        topology,
        '--play-agent-host',
        '10.0.0.7',
        '--console-cert',
        certificate,
        '--console-key',
        key,
        '--playback-cert',
        certificate,
        '--playback-key',
        key,
      ]);
      const file = path.join(dir, `Caddyfile-${topology}`);
      writeFileSync(file, caddySites(options));
      const { stdout } = await run('caddy', ['validate', '--config', file, '--adapter', 'caddyfile'], {
        env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
      });
      expect(stdout).toContain('Valid configuration');
    },
    60_000,
  );
});
