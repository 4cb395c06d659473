// What the vfs bench times on one URL (docs/vfs-cache.md, "Bench"): a player's first byte, the probe
// tool, a player's start, a seek; and the disk a cache folder uses.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Seconds of playback a player buffers before it starts (ffmpeg reading as fast as it can). */
export const START_BUFFER_SECONDS = 5;

export type Metric = 'ttfb' | 'probe' | 'start' | 'seek';
export const METRICS: readonly Metric[] = ['ttfb', 'probe', 'start', 'seek'];

/** Milliseconds until the first body byte of a ranged GET (the connection is dropped after it). */
export async function firstByteMs(url: string, range: string): Promise<number> {
  const started = performance.now();
  const controller = new AbortController();
  const response = await fetch(url, { headers: { range }, signal: controller.signal });
  const reader = response.body!.getReader();
  const { value } = (await reader.read()) as { value?: Uint8Array };
  const ms = performance.now() - started;
  if (!value?.length) throw new Error(`no body from ${url}`);
  controller.abort();
  await reader.cancel().catch(() => undefined);
  return ms;
}

async function timed(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  await run(command, args, { timeout: 300_000 });
  return performance.now() - started;
}

/** ffprobe of the format and streams, as a media server does before playback. */
export const probeMs = (url: string) =>
  timed('ffprobe', ['-v', 'error', '-show_format', '-show_streams', url]);

/**
 * A player's start: ffmpeg opens the file as any demuxer does (the head, the MP4 moov wherever it lies,
 * the Matroska Cues) and reads the first seconds of every stream.
 */
export const startMs = (url: string) =>
  timed(
    'ffmpeg',
    [
      ['-hide_banner', '-v', 'error', '-i', url, '-t', String(START_BUFFER_SECONDS)],
      ['-map', '0', '-c', 'copy', '-f', 'null', '-'],
    ].flat(),
  );

/** A seek of a playing player to the middle: the first byte of `bytes=<middle>-`. */
export const seekMs = (url: string, size: number) => firstByteMs(url, `bytes=${Math.floor(size / 2)}-`);

export function measureMetric(metric: Metric, url: string, size: number): Promise<number> {
  switch (metric) {
    case 'ttfb':
      return firstByteMs(url, 'bytes=0-');
    case 'probe':
      return probeMs(url);
    case 'start':
      return startMs(url);
    case 'seek':
      return seekMs(url, size);
  }
}

/** Bytes a folder holds on disk (allocated blocks: sparse cache files count what they really use). */
export async function diskBytes(folder: string): Promise<number> {
  const { stdout } = await run('du', ['-s', '--block-size=1', folder]);
  return Number(stdout.split(/\s/)[0]);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
