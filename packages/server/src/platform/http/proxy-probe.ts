import type { FastifyReply } from 'fastify';
import { PROXY_PROBE_BYTES } from '@svc/contracts';

/**
 * Answers of the reverse-proxy probes (docs/reverse-proxy.md "svc doctor"). Each writes a first piece at
 * once and the rest after `holdMs`, on a hijacked reply so nothing in between buffers: a proxy that
 * buffers delivers the first piece late, one whose read timeout is shorter than `holdMs` cuts the answer.
 */

function later(ms: number, closed: () => boolean, then: () => void): void {
  if (ms === 0) {
    then();
    return;
  }
  const timer = setTimeout(() => {
    if (!closed()) then();
  }, ms);
  timer.unref();
}

/** Event stream: `event: probe` with data `first`, the pause, then data `last`, and the end. */
export function sendStreamProbe(reply: FastifyReply, holdMs: number): void {
  reply.hijack();
  const raw = reply.raw;
  let closed = false;
  raw.on('close', () => (closed = true));
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  raw.socket?.setNoDelay(true);
  raw.write('event: probe\ndata: first\n\n');
  later(
    holdMs,
    () => closed,
    () => raw.end('event: probe\ndata: last\n\n'),
  );
}

/** The probe body's byte at `offset`: a fixed pattern, so a client can check any Range it asked for. */
export const probeByte = (offset: number) => (offset * 31 + 7) % 251;

export function probeBytes(start: number, endInclusive: number): Buffer {
  const bytes = Buffer.alloc(endInclusive - start + 1);
  for (let index = 0; index < bytes.length; index++) bytes[index] = probeByte(start + index);
  return bytes;
}

/** One `bytes=a-b`, `bytes=a-` or `bytes=-n` range within the probe body; undefined when absent or other. */
function parseRange(header: string | undefined): { start: number; end: number } | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const last = PROXY_PROBE_BYTES - 1;
  if (match[1] === '') return { start: Math.max(0, PROXY_PROBE_BYTES - Number(match[2])), end: last };
  const start = Number(match[1]);
  const end = match[2] === '' ? last : Math.min(Number(match[2]), last);
  return start <= end ? { start, end } : undefined;
}

/** Fixed bytes with Range support (one range), first 1 KiB at once and the rest after `holdMs`. */
export function sendBytesProbe(
  reply: FastifyReply,
  options: { holdMs: number; range: string | undefined; headers: Record<string, string> },
): void {
  const range = parseRange(options.range);
  const { start, end } = range ?? { start: 0, end: PROXY_PROBE_BYTES - 1 };
  const body = probeBytes(start, end);
  reply.hijack();
  const raw = reply.raw;
  let closed = false;
  raw.on('close', () => (closed = true));
  raw.writeHead(range ? 206 : 200, {
    'content-type': 'application/octet-stream',
    'content-length': String(body.length),
    'accept-ranges': 'bytes',
    'cache-control': 'no-store',
    ...(range ? { 'content-range': `bytes ${start}-${end}/${PROXY_PROBE_BYTES}` } : {}),
    ...options.headers,
  });
  raw.socket?.setNoDelay(true);
  const split = Math.min(1024, body.length);
  raw.write(body.subarray(0, split));
  later(
    options.holdMs,
    () => closed,
    () => raw.end(body.subarray(split)),
  );
}
