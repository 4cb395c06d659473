import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Mount } from '@svc/contracts';
import { startStorage, type StorageHarness } from '../services/storage/storage-harness.js';
import { freePorts } from '../support/ports.js';
import { startThrottlingProxy, type ThrottlingProxy } from '../support/throttling-proxy.js';
import { waitFor } from '../support/wait.js';

/**
 * The far-away origin of the video cache tests and the vfs bench: a real WebDAV server (`rclone serve
 * webdav` over a temp folder) behind the throttling proxy (latency + one shared bandwidth), mounted on a
 * storage node started in this process. The play-agent side reads a file through the storage node's
 * internal file route (`upstreamFileSource`), so every byte it does not take from its cache crosses the
 * proxy, whose counters say how many.
 */

const run = promisify(execFile);

export interface Link {
  latencyMs: number;
  bytesPerSecond: number;
}

export interface VfsOrigin {
  /** The folder the WebDAV server serves: put files here. */
  davDir: string;
  davUrl: string;
  proxy: ThrottlingProxy;
  storage: StorageHarness;
  mount: Mount;
  /** The storage node's base URL and the service token of its internal routes. */
  storageUrl: string;
  serviceToken: string;
  stop(): Promise<void>;
}

async function startRcloneWebdav(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const [port] = await freePorts(1);
  // No directory cache: files are written into the folder while the server runs.
  const args = ['serve', 'webdav', '--addr', `127.0.0.1:${port}`, '--user', 'dav', '--pass', 'dav-pass'];
  const child = spawn('rclone', [...args, '--dir-cache-time', '0s', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(async () => {
    const response = await fetch(url, { method: 'OPTIONS' }).catch(() => undefined);
    return response ? true : undefined;
  }, 30_000).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw new Error(`rclone serve webdav did not start: ${String(error)} ${log}`);
  });
  return { url, child };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export async function startVfsOrigin(link: Link): Promise<VfsOrigin> {
  const davDir = mkdtempSync(path.join(tmpdir(), 'svc-vfs-dav-'));
  const dav = await startRcloneWebdav(davDir);
  const proxy = await startThrottlingProxy({ target: dav.url.replace(/\/$/, ''), ...link });
  const storage = await startStorage({ SVC_DB_MODE: 'bundled' });
  const stop = async () => {
    await storage.stop();
    await proxy.close();
    await stopChild(dav.child);
    rmSync(davDir, { recursive: true, force: true });
  };
  const created = await storage.api('POST', '/api/storage/mounts', {
    body: {
      name: 'far-nas',
      provider: 'webdav',
      config: { url: `${proxy.url}/`, username: 'dav', password: 'dav-pass', allowPrivateNetwork: true },
    },
  });
  if (created.status !== 201) {
    await stop();
    throw new Error(`the WebDAV mount was refused: ${created.body.toString()}`);
  }
  return {
    davDir,
    davUrl: dav.url,
    proxy,
    storage,
    mount: created.json<Mount>(),
    storageUrl: storage.base,
    serviceToken: storage.install.context.serviceToken,
    stop,
  };
}

export type MediaKind = 'mp4-faststart' | 'mp4-tail' | 'mkv';

export const MEDIA_FILES: Record<MediaKind, string> = {
  'mp4-faststart': 'faststart.mp4',
  'mp4-tail': 'tail-moov.mp4',
  mkv: 'movie.mkv',
};

/**
 * Writes a short clip (testsrc2 + a tone, H.264 + AAC) of about `seconds` × 3 Mbit/s in the given
 * container: MP4 with its moov at the head (faststart) or at the end (ffmpeg's default), or Matroska.
 */
export async function makeMedia(dir: string, kind: MediaKind, seconds = 6): Promise<string> {
  const file = path.join(dir, MEDIA_FILES[kind]);
  const input = [
    ['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25'],
    ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
  ].flat();
  const codecs = ['-c:v', 'libx264', '-preset', 'ultrafast', '-b:v', '3M', '-c:a', 'aac', '-b:a', '64k'];
  const extra = kind === 'mp4-faststart' ? ['-movflags', '+faststart'] : [];
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    ...input,
    '-t',
    String(seconds),
    ...codecs,
    ...extra,
    file,
  ]);
  return file;
}

/** ffprobe's view of a URL (format and streams as JSON); rejects when ffprobe fails. */
export async function ffprobe(url: string): Promise<{ format: { format_name: string }; streams: unknown[] }> {
  const { stdout } = await run(
    'ffprobe',
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', url],
    { timeout: 120_000 },
  );
  return JSON.parse(stdout) as { format: { format_name: string }; streams: unknown[] };
}
