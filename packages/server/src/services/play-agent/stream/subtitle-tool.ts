import { spawn } from 'node:child_process';
import { AppError } from '../../../platform/http/errors.js';

/** Text subtitle formats ffmpeg writes for players: WebVTT for browsers, SubRip for the rest. */
export type TextSubtitleFormat = 'vtt' | 'srt';

const ENCODERS: Record<TextSubtitleFormat, string[]> = {
  vtt: ['-c:s', 'webvtt', '-f', 'webvtt'],
  srt: ['-c:s', 'srt', '-f', 'srt'],
};

export interface SubtitleToolOptions {
  /** The ffmpeg binary (tests point it elsewhere to see a node without it). */
  binary?: string;
  /** A run is killed after this long (a whole file is read: the subtitle packets lie all along it). */
  timeoutMs?: number;
  /** Output larger than this is refused (a text subtitle is rarely above a few hundred KiB). */
  maxBytes?: number;
  /** ffmpeg runs at a time; more wait. */
  concurrency?: number;
  /** Runs that may wait for a turn; more are refused (503 SUBTITLE_BUSY) rather than queued without end. */
  maxWaiting?: number;
}

export const ffmpegUnavailable = () =>
  new AppError(
    503,
    'FFMPEG_UNAVAILABLE',
    'ffmpeg is not installed on this play-agent, so embedded subtitles cannot be extracted (install the play-agent with ffmpeg)',
  );

/**
 * Turns one text subtitle stream into WebVTT or SubRip with ffmpeg: the stream is copied as text, no
 * picture or sound is decoded (this is not transcoding). Bounded in time, output size and parallel runs.
 */
export class SubtitleTool {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: SubtitleToolOptions = {}) {}

  /** Stream `streamIndex` (ffprobe's index) of the media at `url` (a loopback http address). */
  extract(url: string, streamIndex: number, format: TextSubtitleFormat): Promise<Buffer> {
    if (!url.startsWith('http://127.0.0.1:')) throw new Error('subtitle input must be a loopback URL');
    return this.run(['-protocol_whitelist', 'http,tcp', '-i', url, '-map', `0:${streamIndex}`], format);
  }

  /** A whole subtitle file (ASS/SSA, SubRip) given as bytes, in another text format. */
  convert(input: Buffer, format: TextSubtitleFormat): Promise<Buffer> {
    return this.run(['-protocol_whitelist', 'pipe', '-i', 'pipe:0', '-map', '0:s:0'], format, input);
  }

  private async slot(): Promise<() => void> {
    if (this.active >= (this.options.concurrency ?? 2)) {
      if (this.waiting.length >= (this.options.maxWaiting ?? 16)) {
        throw new AppError(503, 'SUBTITLE_BUSY', 'too many subtitles are being extracted; try again shortly');
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.active += 1;
    return () => {
      this.active -= 1;
      this.waiting.shift()?.();
    };
  }

  private async run(input: string[], format: TextSubtitleFormat, stdin?: Buffer): Promise<Buffer> {
    const release = await this.slot();
    try {
      // -nostdin keeps ffmpeg off the terminal, unless the input itself comes through stdin.
      const quiet = stdin ? ['-hide_banner'] : ['-hide_banner', '-nostdin'];
      return await this.spawn([...quiet, '-v', 'error', ...input, ...ENCODERS[format], 'pipe:1'], stdin);
    } finally {
      release();
    }
  }

  private spawn(args: string[], stdin?: Buffer): Promise<Buffer> {
    const timeoutMs = this.options.timeoutMs ?? 120_000;
    const maxBytes = this.options.maxBytes ?? 10 * 1024 * 1024;
    return new Promise<Buffer>((resolve, reject) => {
      const child = spawn(this.options.binary ?? 'ffmpeg', args, {
        stdio: 'pipe',
        windowsHide: true,
      });
      const chunks: Buffer[] = [];
      let length = 0;
      let stderr = '';
      let failure: AppError | null = null;
      const stop = (error: AppError) => {
        failure ??= error;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(
        () =>
          stop(new AppError(504, 'SUBTITLE_TIMEOUT', `ffmpeg did not finish within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      child.stdout.on('data', (chunk: Buffer) => {
        length += chunk.length;
        if (length > maxBytes) stop(new AppError(413, 'SUBTITLE_TOO_LARGE', 'the subtitle is too large'));
        else chunks.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        // Only the end is kept: ffmpeg's last line says what went wrong.
        stderr = (stderr + chunk.toString('utf8')).slice(-4096);
      });
      child.stdin.on('error', () => undefined);
      child.stdin.end(stdin);
      child.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(error.code === 'ENOENT' ? ffmpegUnavailable() : error);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (failure) return reject(failure);
        if (code !== 0) {
          const reason =
            stderr
              .trim()
              .split('\n')
              .pop()
              ?.replace(/https?:\/\/\S+/g, '<file>') ?? '';
          return reject(
            new AppError(422, 'SUBTITLE_EXTRACT_FAILED', `ffmpeg could not extract the subtitle: ${reason}`),
          );
        }
        resolve(Buffer.concat(chunks));
      });
    });
  }
}
