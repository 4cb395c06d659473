import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  contentRange,
  parseSingleRange,
  type ByteRange,
} from '../../../platform/http/file-delivery/range.js';
import type { MediaSource } from '../stream/sources.js';
import { normalize } from './range-set.js';

/**
 * The smart probe (docs/vfs-cache.md, "SMART_STARTUP"): ffprobe reads the file through a loopback HTTP
 * reader (127.0.0.1, a random port, a one-time token in the path, Range support) and the reader notes
 * every byte range it sent. Those ranges are where the container keeps what a player needs to start.
 * Bytes are sent in small pieces, each after the socket took the previous one, so what is noted exceeds
 * what ffprobe parsed only by what the socket buffers held when ffprobe moved on.
 */

export interface ProbeObserverOptions {
  /** The ffprobe binary. */
  binary: string;
  /** ffprobe is killed after this long (the observation then fails). */
  timeoutMs: number;
  signal?: AbortSignal;
}

const PIECE_BYTES = 32 * 1024;
const RESPONSE_BYTES = 64 * 1024;

/** The ranges ffprobe read from `source` (normalized); rejects when ffprobe fails or times out. */
export async function observeProbeReads(
  source: MediaSource,
  size: number,
  options: ProbeObserverOptions,
): Promise<ByteRange[]> {
  const token = randomBytes(24).toString('hex');
  const sent: ByteRange[] = [];
  const server = createServer((request, response) => {
    if (request.url !== `/${token}` || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404).end();
      return;
    }
    serveRange(source, size, request, response, sent).catch(() => response.destroy());
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve((server.address() as AddressInfo).port));
  });
  try {
    await runProbe(`http://127.0.0.1:${port}/${token}`, options);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  return normalize(sent);
}

async function serveRange(
  source: MediaSource,
  size: number,
  request: IncomingMessage,
  response: ServerResponse,
  sent: ByteRange[],
): Promise<void> {
  const header = request.headers.range;
  const asked = parseSingleRange(typeof header === 'string' ? header : undefined, size);
  if (asked.kind === 'unsatisfiable' || size === 0) {
    response.writeHead(416, { 'content-range': `bytes */${size}` }).end();
    return;
  }
  const whole = asked.kind === 'partial' ? asked.range : { start: 0, end: size - 1 };
  const range = { start: whole.start, end: Math.min(whole.end, whole.start + RESPONSE_BYTES - 1) };
  const headers = {
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
    'content-length': String(range.end - range.start + 1),
  };
  response.writeHead(206, { ...headers, 'content-range': contentRange(range, size) });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  const controller = new AbortController();
  response.once('close', () => controller.abort(new Error('the probe closed the connection')));
  const body = await source.open(range, controller.signal);
  let position = range.start;
  try {
    while (!response.destroyed) {
      const chunk = await body.read();
      if (chunk === null) break;
      for (let offset = 0; offset < chunk.length && !response.destroyed; offset += PIECE_BYTES) {
        const piece = chunk.subarray(offset, Math.min(chunk.length, offset + PIECE_BYTES));
        sent.push({ start: position, end: position + piece.length - 1 });
        position += piece.length;
        if (!response.write(piece)) await drained(response);
      }
      body.release(chunk);
    }
    response.end();
  } finally {
    await body.close();
  }
}

function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.once('drain', done);
    response.once('close', done);
  });
}

function runProbe(url: string, options: ProbeObserverOptions): Promise<void> {
  const args = [
    '-hide_banner',
    '-v',
    'error',
    '-protocol_whitelist',
    'http,tcp',
    '-reconnect',
    '1',
    '-show_format',
    '-show_streams',
    '-of',
    'json',
    '-i',
    url,
  ];
  return new Promise<void>((resolve, reject) => {
    const child = spawn(options.binary, args, { stdio: ['ignore', 'ignore', 'pipe'], windowsHide: true });
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => {
      stderr = (stderr + data.toString()).slice(-2000);
    });
    const kill = () => child.kill('SIGKILL');
    const timer = setTimeout(kill, options.timeoutMs);
    options.signal?.addEventListener('abort', kill, { once: true });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      if (code === 0) resolve();
      else
        reject(new Error(`ffprobe ended with ${signal ?? code}: ${stderr.trim().split('\n').pop() ?? ''}`));
    });
  });
}

/** Whether `binary` runs as ffprobe (the node's probe tool is present). */
export function probeToolPresent(binary = 'ffprobe'): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(binary, ['-version'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('close', (code) => resolve(code === 0));
  });
}
