import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { freePorts } from '../support/ports.js';
import { waitFor } from '../support/wait.js';

const run = promisify(execFile);
const NGINX = '/usr/sbin/nginx';

/** A self-signed certificate for both test names, made with the openssl command line. */
export interface TestCertificate {
  certificate: string;
  key: string;
  pem: string;
}

/**
 * A real nginx run as a child with its own prefix folder on loopback ports. Sites are swapped by
 * rewriting the included file and reloading; a marker server on a second port answers the generation
 * of the configuration in force, so a test waits for the reload instead of sleeping.
 */
export interface RealNginx {
  dir: string;
  httpsPort: number;
  tls: TestCertificate;
  /** Puts `sites` in force (nginx -t first, then a reload, then waits until the new workers answer). */
  load(sites: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startNginx(serverNames: readonly string[]): Promise<RealNginx> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-nginx-'));
  for (const folder of ['logs', 'temp']) mkdirSync(path.join(dir, folder));
  const [httpsPort, markerPort] = (await freePorts(2)) as [number, number];
  const certificate = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${serverNames[0]}`,
    '-addext',
    `subjectAltName=${serverNames.map((name) => (isIP(name) ? `IP:${name}` : `DNS:${name}`)).join(',')}`,
    '-keyout',
    key,
    '-out',
    certificate,
  ]);
  const conf = path.join(dir, 'nginx.conf');
  let generation = 0;
  const writeMain = () =>
    writeFileSync(
      conf,
      [
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/logs/error.log warn;`,
        'worker_processes 1;',
        'events { worker_connections 256; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
          (kind) => `  ${kind}_temp_path ${dir}/temp/${kind};`,
        ),
        `  server { listen 127.0.0.1:${markerPort}; location / { return 200 "${generation}"; } }`,
        `  include ${dir}/sites.conf;`,
        '}',
        '',
      ].join('\n'),
    );
  writeFileSync(path.join(dir, 'sites.conf'), '');
  writeMain();
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const generationInForce = async () => {
    try {
      const answer = await request(`http://127.0.0.1:${markerPort}/`);
      return Number(await answer.body.text());
    } catch {
      return -1;
    }
  };
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    return (await generationInForce()) === 0 ? true : undefined;
  });

  return {
    dir,
    httpsPort,
    tls: { certificate, key, pem: readFileSync(certificate, 'utf8') },
    load: async (sites) => {
      generation += 1;
      writeFileSync(path.join(dir, 'sites.conf'), sites);
      writeMain();
      await run(NGINX, ['-t', '-q', '-p', dir, '-c', conf]);
      child.kill('SIGHUP');
      const wanted = generation;
      await waitFor(async () => ((await generationInForce()) === wanted ? true : undefined));
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
