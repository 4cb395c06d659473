import { PROXY_PROBE_BYTES, PROXY_PROBE_ROUTE_HEADER } from '@svc/contracts';
import { probeBytes } from '../platform/http/proxy-probe.js';
import { ok, problem, skipped, type CheckResult } from './check-result.js';
import { probe, type ProbeAnswer } from './http-probe.js';
import type { Dispatcher } from 'undici';

export const PROBE_PATH = '/svc/proxy-probe';
export const STREAM_PROBE_PATH = '/api/config/diagnostics/stream-probe';
/** A first piece later than this share of the pause counts as held back by the proxy. */
const BUFFERED_SHARE = 0.5;
const RANGE = { start: 1000, end: 1999 };

export const at = (base: URL, path: string, holdMs?: number) => {
  const url = new URL(path, base);
  if (holdMs !== undefined) url.searchParams.set('holdMs', String(holdMs));
  return url;
};

const looksLikeConsole = (answer: ProbeAnswer) =>
  (answer.headers['content-type'] ?? '').includes('text/html') || answer.status === 404;

const seconds = (ms: number | null) => (ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`);

/**
 * The playback site: the right upstream, the endpoint token, Range, compression, buffering, timeout. With
 * `expectedRoute` (the manual address's node id) the token must name that address; without it any address.
 */
export async function playbackChecks(
  dispatcher: Dispatcher,
  playback: URL,
  holdMs: number,
  expectedRoute?: string,
): Promise<CheckResult[]> {
  const subject = playback.origin;
  return (await playbackSiteChecks(dispatcher, playback, holdMs, expectedRoute)).map((result) => ({
    ...result,
    subject,
  }));
}

async function playbackSiteChecks(
  dispatcher: Dispatcher,
  playback: URL,
  holdMs: number,
  expectedRoute: string | undefined,
): Promise<CheckResult[]> {
  const site = 'playback-site';
  const title = 'Playback domain reaches the play-agent';
  let first: ProbeAnswer;
  try {
    first = await probe(dispatcher, at(playback, PROBE_PATH), {}, holdMs + 30_000);
  } catch (error) {
    return [
      problem(
        site,
        title,
        `no answer: ${(error as Error).message}`,
        'check DNS, the certificate and that the proxy listens for the playback domain',
      ),
    ];
  }
  const route = first.headers[PROXY_PROBE_ROUTE_HEADER];
  if (route === undefined) {
    return [
      problem(
        site,
        title,
        looksLikeConsole(first)
          ? `answered ${first.status} ${first.headers['content-type'] ?? ''}: console pages or 404, not the play-agent`
          : `answered ${first.status} without the play-agent's probe`,
        'give the playback site its own server_name and proxy it to the play-agent (127.0.0.1:19090 standalone, <play-agent host>:19090 distributed), never to 18080',
      ),
    ];
  }
  const results: CheckResult[] = [ok(site, title, `the play-agent answered ${first.status}`)];
  const tokenTitle = 'Endpoint token injected by the playback proxy';
  const tokenFix =
    'copy the current endpoint token of the manual address into the playback site (proxy_set_header X-SVC-Endpoint-Token "<token>"; or header_up) and reload the proxy';
  results.push(
    route === 'direct'
      ? problem(
          'endpoint-token',
          tokenTitle,
          'no X-SVC-Endpoint-Token reached the play-agent: requests count as direct, user-level authorization does not apply',
          tokenFix,
        )
      : route === 'unknown'
        ? problem(
            'endpoint-token',
            tokenTitle,
            'the X-SVC-Endpoint-Token names no enabled manual address (stale after regeneration, or mistyped)',
            tokenFix,
          )
        : expectedRoute !== undefined && route !== expectedRoute
          ? problem(
              'endpoint-token',
              tokenTitle,
              `the X-SVC-Endpoint-Token names manual address ${route}, not ${expectedRoute}: its traffic and authorization go to the other address`,
              tokenFix,
            )
          : ok('endpoint-token', tokenTitle, `traffic is attributed to manual address ${route}`),
  );

  const ranged = await probe(
    dispatcher,
    at(playback, PROBE_PATH),
    { range: `bytes=${RANGE.start}-${RANGE.end}`, 'accept-encoding': 'gzip, br' },
    holdMs + 30_000,
  );
  const expectedRange = `bytes ${RANGE.start}-${RANGE.end}/${PROXY_PROBE_BYTES}`;
  const rangeIntact =
    ranged.status === 206 &&
    ranged.headers['content-range'] === expectedRange &&
    ranged.headers['content-encoding'] === undefined &&
    ranged.body.equals(probeBytes(RANGE.start, RANGE.end));
  results.push(
    rangeIntact
      ? ok('playback-range', 'Range requests pass unchanged', `206 with Content-Range ${expectedRange}`)
      : problem(
          'playback-range',
          'Range requests pass unchanged',
          `answered ${ranged.status}, Content-Range ${ranged.headers['content-range'] ?? 'missing'}, Content-Encoding ${ranged.headers['content-encoding'] ?? 'none'}`,
          'do not rewrite Range, Accept-Ranges or Content-Range on the playback site, and turn compression and caching off there',
        ),
  );

  const whole = await probe(
    dispatcher,
    at(playback, PROBE_PATH),
    { 'accept-encoding': 'gzip, deflate, br' },
    holdMs + 30_000,
  );
  const encoding = whole.headers['content-encoding'];
  results.push(
    encoding === undefined
      ? ok('playback-compression', 'No compression on playback', 'answers arrive without Content-Encoding')
      : problem(
          'playback-compression',
          'No compression on playback',
          `answers arrive with Content-Encoding ${encoding}: seeking spins`,
          'turn compression off on the playback site (gzip off; no encode directive)',
        ),
  );

  const held = await probe(dispatcher, at(playback, PROBE_PATH, holdMs), {}, holdMs + 30_000);
  results.push(...heldChecks('playback', held, holdMs, (answer) => answer.body.length === PROXY_PROBE_BYTES));
  return results;
}

/** Buffering and timeout from one held answer. */
function heldChecks(
  site: 'playback' | 'console',
  answer: ProbeAnswer,
  holdMs: number,
  complete: (answer: ProbeAnswer) => boolean,
): CheckResult[] {
  const what =
    site === 'playback'
      ? 'Playback answers stream without buffering'
      : 'Console event streams (SSE) are not buffered';
  const bufferFix =
    site === 'playback'
      ? 'turn response buffering off on the playback site (proxy_buffering off; flush_interval -1)'
      : 'turn response buffering off on the console site (proxy_buffering off; flush_interval -1), keep text/event-stream out of compression, and do not ignore X-Accel-Buffering';
  const timeoutTitle =
    site === 'playback' ? 'Long playback answers are not cut' : 'Long console answers are not cut';
  const timeout = site === 'playback' ? '3600' : '600';
  const buffered = answer.firstByteMs === null || answer.firstByteMs > holdMs * BUFFERED_SHARE;
  const whole = answer.cut === null && complete(answer);
  return [
    buffered && whole
      ? problem(
          `${site}-buffering`,
          what,
          `the first piece arrived after ${seconds(answer.firstByteMs)}, sent at once and followed by a ${seconds(holdMs)} pause`,
          bufferFix,
        )
      : buffered
        ? skipped(`${site}-buffering`, what, 'the answer was cut before anything arrived')
        : ok(`${site}-buffering`, what, `the first piece arrived after ${seconds(answer.firstByteMs)}`),
    whole
      ? ok(`${site}-timeout`, timeoutTitle, `an answer with a ${seconds(holdMs)} pause arrived whole`)
      : problem(
          `${site}-timeout`,
          timeoutTitle,
          `an answer with a ${seconds(holdMs)} pause was cut after ${seconds(answer.totalMs)}${answer.cut ? ` (${answer.cut})` : ''}: a read timeout shorter than the pause (60 s is a common default)`,
          `raise the ${site} site's read and send timeouts to ${timeout} s (proxy_read_timeout/proxy_send_timeout/send_timeout ${timeout}s; read_timeout/write_timeout in Caddy)`,
        ),
  ];
}

/**
 * The console site, from the event-stream probe fetched through it: `probeUrl` is the CLI's admin route
 * (with the token in `headers`) or a run's ticket route (the application's own call).
 */
export async function consoleChecks(
  dispatcher: Dispatcher,
  probeUrl: URL,
  headers: Record<string, string>,
  holdMs: number,
): Promise<CheckResult[]> {
  const subject = probeUrl.origin;
  return (await consoleSiteChecks(dispatcher, probeUrl, headers, holdMs)).map((result) => ({
    ...result,
    subject,
  }));
}

async function consoleSiteChecks(
  dispatcher: Dispatcher,
  probeUrl: URL,
  headers: Record<string, string>,
  holdMs: number,
): Promise<CheckResult[]> {
  let answer: ProbeAnswer;
  try {
    answer = await probe(dispatcher, probeUrl, { ...headers, accept: 'text/event-stream' }, holdMs + 30_000);
  } catch (error) {
    return [
      problem(
        'console-site',
        'Console site answers',
        `no answer: ${(error as Error).message}`,
        'check DNS, the certificate and that the proxy forwards the console domain to 127.0.0.1:18080',
      ),
    ];
  }
  if (answer.status !== 200 || !(answer.headers['content-type'] ?? '').includes('text/event-stream')) {
    return [
      problem(
        'console-site',
        'Console site answers',
        `the stream probe answered ${answer.status} ${answer.headers['content-type'] ?? ''}`,
        answer.status === 401 || answer.status === 403
          ? 'pass an admin token (--token) of an account with the node permission'
          : 'proxy the console domain to 127.0.0.1:18080 on the machine running the frontend and the gateway',
      ),
    ];
  }
  return [
    ok('console-site', 'Console site answers', 'the console entrance answered the stream probe'),
    ...heldChecks('console', answer, holdMs, (whole) => whole.body.toString('utf8').includes('data: last')),
  ];
}
