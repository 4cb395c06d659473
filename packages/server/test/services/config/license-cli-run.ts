import { PassThrough } from 'node:stream';
import { runLicense } from '../../../src/cli/license.js';

export interface LicenseCliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the publisher tool in-process, collecting what it writes; `now` is the clock it dates leases by. */
export async function runLicenseCli(args: string[], now?: () => number): Promise<LicenseCliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runLicense(args, now ? { stdout, stderr, now } : { stdout, stderr });
  return { code, stdout: out, stderr: err };
}
