import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, isHealthy, waitUntil } from './support.js';

const MB = 1024 * 1024;

export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** Downloads a URL with curl (the same neutral client for every server); returns MB/s. */
export function curlSpeed(url: string, expectedBytes: number, extra: Record<string, string> = {}): number {
  const args = ['-s', '-o', '/dev/null', '-w', '%{size_download} %{time_total}'];
  for (const [name, value] of Object.entries(extra)) args.push('-H', `${name}: ${value}`);
  const result = spawnSync('curl', [...args, url], { encoding: 'utf8' });
  const [bytes, seconds] = result.stdout.trim().split(' ').map(Number);
  if (result.status !== 0 || bytes !== expectedBytes) {
    throw new Error(`download of ${url} failed: ${result.stderr} ${result.stdout}`);
  }
  return bytes / MB / seconds!;
}

export function bestOf(runs: number, measure: () => number): { best: number; all: number[] } {
  const all = Array.from({ length: runs }, measure);
  return { best: Math.max(...all), all };
}

/**
 * nginx serving `root` with sendfile on loopback: the reference for file throughput. With
 * `limitRateBytes`, every answer is limited by nginx's own `limit_rate` (bytes per second per connection).
 */
export async function startNginx(
  root: string,
  work: string,
  limitRateBytes = 0,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const conf = path.join(work, limitRateBytes > 0 ? 'nginx-limited.conf' : 'nginx.conf');
  mkdirSync(path.join(work, 'nginx-tmp'), { recursive: true });
  const temp = path.join(work, 'nginx-tmp');
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
${process.getuid?.() === 0 ? 'user root;' : ''}
error_log ${path.join(work, 'nginx-error.log')} warn;
pid ${path.join(work, limitRateBytes > 0 ? 'nginx-limited.pid' : 'nginx.pid')};
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    ${limitRateBytes > 0 ? `limit_rate ${limitRateBytes};` : ''}
    location / { }
  }
}
`,
  );
  writeFileSync(path.join(root, 'probe.txt'), 'ok');
  const child = spawn('nginx', ['-c', conf, '-p', work], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(() => isHealthy(`${url}/probe.txt`), 10_000);
  return { child, url };
}
