import { request, type Dispatcher } from 'undici';
import {
  parseContentRange,
  rangeHeader,
  rangeLength,
  type ByteRange,
} from '../../../platform/http/file-delivery/range.js';
import {
  SourceError,
  UpstreamBody,
  type MediaBody,
  type MediaFacts,
  type MediaSource,
} from '../stream/sources.js';
import type { CdnPreference } from './cdn-preference.js';
import type { SampleLink } from './ip-measure.js';

const MiB = 1024 * 1024;
const HEADERS_TIMEOUT_MS = 30_000;
const BODY_TIMEOUT_MS = 300_000;

export interface CdnLinkSourceOptions {
  /** Size and times of the file (the storage node's `locate` answer). */
  facts: MediaFacts;
  /** The file's link; `fresh` asks the storage node again (after the CDN refused the kept one). */
  link: (fresh: boolean) => Promise<SampleLink>;
  preference: CdnPreference;
}

const cdnFailure = (message: string) => new SourceError(502, 'UPSTREAM_UNAVAILABLE', message, 'upstream');

/**
 * A DRIVE_B file read straight from the CDN by this play-agent: each range is a request through the
 * CDN preference's current dispatcher (the primary address), so a range asked after a switch goes to the
 * new address while a range being read stays on its connection. A link the CDN refuses (401/403) is asked
 * for again once.
 */
export function cdnLinkSource(options: CdnLinkSourceOptions): MediaSource {
  const bodies = new Set<MediaBody>();
  return {
    kind: 'http',

    async facts() {
      return options.facts;
    },

    async open(range: ByteRange, signal: AbortSignal): Promise<MediaBody> {
      let link = await linkOf(options, false, signal);
      options.preference.learn({ ...link, refetch: () => options.link(true) });
      let response = await fetchRange(options.preference, link, range, signal);
      if (response.statusCode === 401 || response.statusCode === 403) {
        await response.body.dump().catch(() => undefined);
        link = await linkOf(options, true, signal);
        options.preference.learn({ ...link, refetch: () => options.link(true) });
        response = await fetchRange(options.preference, link, range, signal);
      }
      const { statusCode, headers } = response;
      const size = options.facts.size;
      let matches = false;
      if (statusCode === 206) {
        const answered = parseContentRange(single(headers['content-range']));
        matches =
          answered !== null &&
          answered.start === range.start &&
          answered.end === range.end &&
          answered.size === size;
      } else if (statusCode === 200) {
        matches = range.start === 0 && range.end === size - 1;
      }
      const length = single(headers['content-length']);
      if (length !== undefined && length !== String(rangeLength(range))) matches = false;
      if (!matches) {
        // Destroying an unread body emits an abort error: nobody reads it any more.
        response.body.on('error', () => undefined).destroy();
        if (statusCode === 404) {
          throw new SourceError(404, 'NOT_FOUND', 'the file is not on the drive', 'not-found');
        }
        throw statusCode === 200 || statusCode === 206
          ? new SourceError(502, 'UPSTREAM_UNAVAILABLE', 'the file changed on the drive', 'changed')
          : cdnFailure(`the CDN answered ${statusCode}`);
      }
      const body = new UpstreamBody(response.body, rangeLength(range), signal);
      bodies.add(body);
      return body;
    },

    async close() {
      await Promise.all([...bodies].map((body) => body.close()));
    },
  };
}

async function linkOf(
  options: CdnLinkSourceOptions,
  fresh: boolean,
  signal: AbortSignal,
): Promise<SampleLink> {
  try {
    return await options.link(fresh);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw cdnFailure(`no link for the file: ${(error as Error).message}`);
  }
}

/**
 * One ranged GET through the dispatcher the preference names now. An address that does not answer is
 * reported (it leaves the pool) and the request goes once more to the address that replaced it.
 */
async function fetchRange(
  preference: CdnPreference,
  link: SampleLink,
  range: ByteRange,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const host = new URL(link.url).host;
  for (let attempt = 0; ; attempt += 1) {
    const { dispatcher, ip } = preference.dispatcherFor(host);
    try {
      return await request(link.url, {
        method: 'GET',
        dispatcher,
        headers: { ...link.headers, range: rangeHeader(range) },
        signal,
        headersTimeout: HEADERS_TIMEOUT_MS,
        bodyTimeout: BODY_TIMEOUT_MS,
        highWaterMark: MiB,
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (ip) preference.reportFailure(host, ip);
      if (!ip || attempt > 0) throw cdnFailure(`the CDN did not answer: ${(error as Error).message}`);
    }
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}
