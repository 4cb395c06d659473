import { execFile } from 'node:child_process';
import { setPriority } from 'node:os';
import type { MediaInfo } from '@svc/contracts';
import { AppError } from '../../../platform/http/errors.js';
import { probeResultOf, type FfprobeOutput } from '../../shared/ffprobe-output.js';

const OUTPUT_LIMIT = 8 * 1024 * 1024;
/** The lowest CPU priority: a background probe yields to the streams of the node. */
const BACKGROUND_PRIORITY = 19;

/**
 * Runs ffprobe on a loopback URL at the lowest CPU priority, with a timeout; the storage node's parser turns
 * its JSON into the metadata the scanner stores. Throws PROBE_FAILED or PROBE_TIMEOUT.
 */
export function runBackgroundProbe(
  binary: string,
  url: string,
  size: number,
  timeoutMs: number,
): Promise<MediaInfo> {
  if (!url.startsWith('http://127.0.0.1:')) throw new Error('probe input must be a loopback URL');
  const args = ['-hide_banner', '-v', 'error', '-protocol_whitelist', 'http,tcp', '-print_format', 'json'];
  args.push('-show_format', '-show_streams', '-show_chapters', '-i', url);
  return new Promise((resolve, reject) => {
    const child = execFile(
      binary,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: OUTPUT_LIMIT, windowsHide: true },
      (error, stdout, stderr) => {
        if (error) {
          if (error.killed || error.signal === 'SIGKILL') {
            reject(new AppError(504, 'PROBE_TIMEOUT', `ffprobe did not finish within ${timeoutMs / 1000} s`));
            return;
          }
          const reason = (String(stderr).trim().split('\n').pop() ?? '').replace(url, '<file>');
          reject(
            new AppError(
              422,
              'PROBE_FAILED',
              `ffprobe could not read the file${reason ? `: ${reason}` : ''}`,
            ),
          );
          return;
        }
        try {
          resolve(probeResultOf(JSON.parse(stdout) as FfprobeOutput, size));
        } catch {
          reject(new AppError(422, 'PROBE_FAILED', 'ffprobe gave no readable answer'));
        }
      },
    );
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, BACKGROUND_PRIORITY);
      } catch {
        // The process may have ended already; the probe then simply ran at normal priority.
      }
    }
  });
}
