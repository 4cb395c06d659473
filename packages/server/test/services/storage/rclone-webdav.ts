import { spawn } from 'node:child_process';
import { freePorts } from '../../support/ports.js';
import { waitFor } from '../../support/runtime.js';

export interface RcloneWebdav {
  url: string;
  /** Stops the server and waits until it has exited. */
  stop(): Promise<void>;
}

/**
 * A real WebDAV server: `rclone serve webdav` over a folder, with basic auth when `login` is given. No
 * directory cache: tests also change the served folder directly.
 */
export async function startRcloneWebdav(
  dir: string,
  login?: { user: string; pass: string },
): Promise<RcloneWebdav> {
  const [port] = await freePorts(1);
  const args = ['serve', 'webdav', '--addr', `127.0.0.1:${port}`, '--dir-cache-time', '0s'];
  if (login) args.push('--user', login.user, '--pass', login.pass);
  const child = spawn('rclone', [...args, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(async () => {
    const response = await fetch(url, { method: 'OPTIONS' }).catch(() => undefined);
    return response ? true : undefined;
  }, 15_000).catch(async (error: unknown) => {
    await stop();
    throw new Error(`rclone did not start: ${String(error)} ${log}`);
  });
  return { url, stop };
}
