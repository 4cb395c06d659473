import { execFile, spawn } from 'node:child_process';
import type { StartupProbeStatus } from '@svc/contracts';
import type { Logger } from '../../../platform/logger.js';

const CHECK_TIMEOUT_MS = 10_000;

/** A 0.1 s silent 8 kHz mono 16-bit WAV: what "working" means is that ffprobe reads it from a pipe. */
export function sampleWav(): Buffer {
  const samples = 800;
  const data = samples * 2;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data, 40);
  return Buffer.concat([header, Buffer.alloc(data)]);
}

/**
 * The node's startup probe (docs/image-cache.md): is ffprobe installed (its version) and does it work (it
 * reads a small sample from a pipe). Runs at start in the background and again on recheck; metadata probing
 * during playback runs only while the last check said `ok`.
 */
export class StartupProbe {
  private current: StartupProbeStatus;
  private running: Promise<StartupProbeStatus> | null = null;

  constructor(
    private readonly deps: { nodeId: string; logger: Logger; binary?: string; now?: () => number },
  ) {
    this.current = {
      nodeId: deps.nodeId,
      tool: 'ffprobe',
      result: 'pending',
      available: false,
      working: false,
      version: null,
      checkedAt: null,
      durationMs: null,
      message: null,
    };
  }

  status(): StartupProbeStatus {
    return this.current;
  }

  /** True while the probe tool is known to work. */
  usable(): boolean {
    return this.current.result === 'ok';
  }

  /** Runs the check (joins one already running) and answers its result. */
  check(): Promise<StartupProbeStatus> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  private async run(): Promise<StartupProbeStatus> {
    const now = this.deps.now ?? Date.now;
    const started = now();
    const binary = this.deps.binary ?? 'ffprobe';
    const version = await this.version(binary);
    let result: StartupProbeStatus['result'] = 'missing';
    let message: string | null = `${binary} was not found or did not start`;
    if (version !== null) {
      const failure = await this.readSample(binary);
      result = failure === null ? 'ok' : 'failed';
      message = failure;
    }
    const finished = now();
    this.current = {
      ...this.current,
      result,
      available: version !== null,
      working: result === 'ok',
      version,
      checkedAt: new Date(finished).toISOString(),
      durationMs: Math.max(0, Math.round(finished - started)),
      message,
    };
    const log = { result, version, message };
    if (result === 'ok') this.deps.logger.info(log, 'startup probe: ffprobe works');
    else this.deps.logger.warn(log, 'startup probe: metadata probing is unavailable on this node');
    return this.current;
  }

  private version(binary: string): Promise<string | null> {
    return new Promise((resolve) => {
      execFile(binary, ['-version'], { timeout: CHECK_TIMEOUT_MS, killSignal: 'SIGKILL' }, (error, out) => {
        if (error) return resolve(null);
        resolve(/version (\S+)/.exec(out)?.[1] ?? 'unknown');
      });
    });
  }

  /** Null when ffprobe read the sample's one audio stream, else why not. */
  private readSample(binary: string): Promise<string | null> {
    return new Promise((resolve) => {
      const args = ['-v', 'error', '-print_format', 'json', '-show_streams', '-i', 'pipe:0'];
      const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), CHECK_TIMEOUT_MS);
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
      child.stdin.on('error', () => undefined);
      child.on('error', (error) => {
        clearTimeout(timer);
        resolve(error.message);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (signal) return resolve(`ffprobe stopped by ${signal}`);
        if (code !== 0) return resolve(err.trim().split('\n').pop() || `ffprobe exited with ${code}`);
        try {
          const parsed = JSON.parse(out) as { streams?: { codec_type?: string }[] };
          const audio = parsed.streams?.some((stream) => stream.codec_type === 'audio') ?? false;
          resolve(audio ? null : 'ffprobe found no stream in the sample');
        } catch {
          resolve('ffprobe gave no readable answer');
        }
      });
      child.stdin.end(sampleWav());
    });
  }
}
