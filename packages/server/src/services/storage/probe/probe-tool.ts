import { execFile } from 'node:child_process';
import type { ProbeResult } from '@svc/contracts';
import { probeResultOf, type FfprobeOutput } from '../../shared/ffprobe-output.js';
import { AppError } from '../../../platform/http/errors.js';
import type { Logger } from '../../../platform/logger.js';

/** Protocols ffprobe may open: files for local mounts, plain HTTP on loopback for the others. */
export type ProbeProtocols = 'file' | 'http,tcp';

const PROBE_OUTPUT_LIMIT = 8 * 1024 * 1024;

export { probeResultOf, type FfprobeOutput };

/** Runs ffprobe with a fixed argument list; at most `concurrency` at a time, each with a timeout. */
export class ProbeTool {
  private version: string | null = null;
  private detected = false;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly logger: Logger,
    private readonly options: { binary?: string; timeoutMs?: number; concurrency?: number } = {},
  ) {}

  private get binary(): string {
    return this.options.binary ?? 'ffprobe';
  }

  /** Looks for ffprobe once (at start). */
  async detect(): Promise<void> {
    this.version = await new Promise<string | null>((resolve) => {
      execFile(this.binary, ['-version'], { timeout: 5_000, killSignal: 'SIGKILL' }, (error, stdout) => {
        if (error) return resolve(null);
        resolve(/ffprobe version (\S+)/.exec(stdout)?.[1] ?? 'unknown');
      });
    });
    this.detected = true;
    if (this.version) this.logger.info({ version: this.version }, 'ffprobe found');
    else this.logger.warn('ffprobe not found: media probing is unavailable on this node');
  }

  status(): { available: boolean; version: string | null } {
    return { available: this.detected && this.version !== null, version: this.version };
  }

  private async slot(): Promise<() => void> {
    const limit = this.options.concurrency ?? 2;
    if (this.active >= limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    return () => {
      this.active -= 1;
      this.waiting.shift()?.();
    };
  }

  /** Probes `input` (an absolute file path or a loopback http URL); throws PROBE_FAILED / PROBE_TIMEOUT. */
  async probe(input: string, protocols: ProbeProtocols, size: number): Promise<ProbeResult> {
    if (!input.startsWith('file:/') && !input.startsWith('http://127.0.0.1:')) {
      throw new Error('probe input must be an absolute path or a loopback URL');
    }
    const release = await this.slot();
    try {
      const timeout = this.options.timeoutMs ?? 60_000;
      const args = [
        '-hide_banner',
        '-v',
        'error',
        '-protocol_whitelist',
        protocols,
        '-print_format',
        'json',
        '-show_format',
        '-show_streams',
        '-show_chapters',
        '-i',
        input,
      ];
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(
          this.binary,
          args,
          { timeout, killSignal: 'SIGKILL', maxBuffer: PROBE_OUTPUT_LIMIT, windowsHide: true },
          (error, out, err) => {
            if (error) {
              if (error.killed || error.signal === 'SIGKILL') {
                reject(
                  new AppError(504, 'PROBE_TIMEOUT', `ffprobe did not finish within ${timeout / 1000} s`),
                );
                return;
              }
              const reason = String(err).trim().split('\n').pop() ?? '';
              reject(
                new AppError(
                  422,
                  'PROBE_FAILED',
                  `ffprobe could not read the file${reason ? `: ${reason.replace(input, '<file>')}` : ''}`,
                ),
              );
              return;
            }
            resolve(out);
          },
        );
      });
      let parsed: FfprobeOutput;
      try {
        parsed = JSON.parse(stdout) as FfprobeOutput;
      } catch {
        throw new AppError(422, 'PROBE_FAILED', 'ffprobe gave no readable answer');
      }
      return probeResultOf(parsed, size);
    } finally {
      release();
    }
  }
}
