import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DIAGNOSTICS_DEFAULT_HOLD_SECONDS, listNodesResponseSchema, type NodeView } from '@svc/contracts';
import { unrestricted } from '../doctor/address-checks.js';
import type { CheckResult } from '../doctor/check-result.js';
import { probeDispatcher } from '../doctor/http-probe.js';
import { at, STREAM_PROBE_PATH } from '../doctor/proxy-checks.js';
import { runChecks } from '../doctor/run-checks.js';
import type { Dispatcher } from 'undici';
import { request } from 'undici';

/** `svc doctor`: checks a running deployment through its reverse proxy (docs/reverse-proxy.md). */

const USAGE = [
  'usage: svc doctor --console URL [--playback URL] --token ADMIN_TOKEN [--json]',
  '         [--hold SECONDS (default 65)] [--ca FILE] [--resolve NAME:ADDRESS ...]',
].join('\n');

/** Longer than the 60 s default read timeout of common proxies, which is what it must reveal. */
export const DEFAULT_HOLD_SECONDS = DIAGNOSTICS_DEFAULT_HOLD_SECONDS;

class DoctorUsageError extends Error {}

export interface DoctorOptions {
  console: URL;
  playback?: URL;
  token: string;
  json: boolean;
  holdMs: number;
  ca?: string;
  resolve: Map<string, string>;
}

function url(flag: string, value: string): URL {
  try {
    const parsed = new URL(value);
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') return parsed;
  } catch {
    // Reported below.
  }
  throw new DoctorUsageError(`--${flag} must be an http(s) URL, got '${value}'`);
}

export function doctorOptionsFromArgs(args: string[]): DoctorOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        console: { type: 'string' },
        playback: { type: 'string' },
        token: { type: 'string' },
        json: { type: 'boolean', default: false },
        hold: { type: 'string', default: String(DEFAULT_HOLD_SECONDS) },
        ca: { type: 'string' },
        resolve: { type: 'string', multiple: true, default: [] },
      },
    }));
  } catch (error) {
    throw new DoctorUsageError((error as Error).message);
  }
  if (!values.console) throw new DoctorUsageError('--console is required');
  if (!values.token)
    throw new DoctorUsageError('--token is required (an admin token with the node permission)');
  const hold = Number(values.hold);
  if (!Number.isFinite(hold) || hold < 0.5 || hold > 110)
    throw new DoctorUsageError('--hold must be 0.5 to 110 seconds');
  const resolve = new Map<string, string>();
  for (const entry of values.resolve) {
    const split = entry.indexOf(':');
    if (split < 1) throw new DoctorUsageError(`--resolve must be NAME:ADDRESS, got '${entry}'`);
    resolve.set(entry.slice(0, split).toLowerCase(), entry.slice(split + 1));
  }
  return {
    console: url('console', values.console),
    ...(values.playback ? { playback: url('playback', values.playback) } : {}),
    token: values.token,
    json: values.json,
    holdMs: Math.round(hold * 1000),
    ...(values.ca ? { ca: readFileSync(values.ca, 'utf8') } : {}),
    resolve,
  };
}

async function nodeList(dispatcher: Dispatcher, options: DoctorOptions): Promise<NodeView[]> {
  const answer = await request(new URL('/api/config/nodes', options.console), {
    dispatcher,
    headers: { 'x-admin-token': options.token },
  });
  const text = await answer.body.text();
  if (answer.statusCode !== 200)
    throw new Error(
      `GET /api/config/nodes answered ${answer.statusCode}: pass an admin token (--token) with the node permission`,
    );
  return listNodesResponseSchema.parse(JSON.parse(text)).nodes;
}

/** Every check, in the order of the troubleshooting list (the same plan the console's Diagnostics page runs). */
export async function runDoctorChecks(options: DoctorOptions): Promise<CheckResult[]> {
  const dispatcher = probeDispatcher({ ...(options.ca ? { ca: options.ca } : {}), resolve: options.resolve });
  try {
    return await runChecks({
      reach: unrestricted(dispatcher),
      holdMs: options.holdMs,
      playback: options.playback ? [{ url: options.playback }] : [],
      console: {
        probeUrl: (holdMs) => at(options.console, STREAM_PROBE_PATH, holdMs),
        headers: { 'x-admin-token': options.token },
      },
      nodes: () => nodeList(dispatcher, options),
      ...(options.playback ? { playbackUrl: options.playback } : {}),
    });
  } finally {
    await dispatcher.close();
  }
}

export function formatChecks(results: readonly CheckResult[]): string {
  const mark = { ok: 'OK     ', problem: 'PROBLEM', skipped: 'SKIPPED' } as const;
  return results
    .map((result) =>
      [
        `${mark[result.status]} ${result.title} [${result.id}]${result.subject ? ` (${result.subject})` : ''}: ${result.detail}`,
        ...(result.fix ? [`        fix: ${result.fix}`] : []),
      ].join('\n'),
    )
    .join('\n')
    .concat('\n');
}

/** Runs `svc doctor`; answers 0 when every check passed, 1 when one found a problem, 2 on wrong input. */
export async function runDoctor(
  args: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  let options: DoctorOptions;
  try {
    options = doctorOptionsFromArgs(args);
  } catch (error) {
    if (!(error instanceof DoctorUsageError)) throw error;
    io.stderr.write(`svc doctor: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  const results = await runDoctorChecks(options);
  io.stdout.write(options.json ? `${JSON.stringify({ checks: results }, null, 2)}\n` : formatChecks(results));
  return results.some((result) => result.status === 'problem') ? 1 : 0;
}
