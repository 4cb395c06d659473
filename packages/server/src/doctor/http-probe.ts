import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import { classifyAddress } from '../platform/http/address-policy.js';

export interface ProbeClientOptions {
  /** Extra trusted CA certificates (PEM), for private or self-signed certificates. */
  ca?: string;
  /** name → address overrides, as curl's --resolve: test a proxy before DNS points at it. */
  resolve?: ReadonlyMap<string, string>;
  /**
   * Connect only to public addresses, judged on the address actually dialled (docs/auth.md, server-side
   * fetches): the application's probes for accounts that are not role admin.
   */
  publicOnly?: boolean;
}

/** Why a connection to `address` is refused under publicOnly (an Error with code EPRIVATEADDRESS). */
export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

/** What a probe saw: status, headers, when the first and the last bytes came, and the body. */
export interface ProbeAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  firstByteMs: number | null;
  totalMs: number;
  /** The body ended with an error (connection cut) instead of cleanly. */
  cut: string | null;
}

export function probeDispatcher(options: ProbeClientOptions): Dispatcher {
  const resolve = options.resolve ?? new Map<string, string>();
  const resolved: LookupFunction = (hostname, lookupOptions, callback) => {
    const fixed = resolve.get(hostname.toLowerCase());
    if (fixed === undefined) {
      dnsLookup(hostname, lookupOptions, callback);
      return;
    }
    const family = fixed.includes(':') ? 6 : 4;
    if (lookupOptions.all)
      (callback as (e: null, a: LookupAddress[]) => void)(null, [{ address: fixed, family }]);
    else callback(null, fixed, family);
  };
  const lookup: LookupFunction = !options.publicOnly
    ? resolved
    : (hostname, lookupOptions, callback) =>
        resolved(hostname, { ...lookupOptions, all: true }, (error, found) => {
          const all = error ? [] : (found as unknown as LookupAddress[]);
          const allowed = all.filter((entry) => classifyAddress(entry.address).allowed);
          const first = allowed[0];
          if (error || !first) {
            const refusal = error ?? new PrivateAddressError(`${hostname} is not a public address`);
            (callback as (e: Error, a: LookupAddress[]) => void)(refusal, []);
            return;
          }
          if (lookupOptions.all) (callback as (e: null, a: LookupAddress[]) => void)(null, allowed);
          else callback(null, first.address, first.family);
        });
  return new Agent({ connect: { lookup, ...(options.ca ? { ca: options.ca } : {}) } });
}

const flat = (headers: Record<string, string | string[] | undefined>) =>
  Object.fromEntries(
    Object.entries(headers)
      .filter((entry): entry is [string, string | string[]] => entry[1] !== undefined)
      .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
  );

/**
 * GET `url` (POST with `body`) and read the whole answer, timing it; a connection error before the answer
 * throws, one while reading is reported as `cut`.
 */
export async function probe(
  dispatcher: Dispatcher,
  url: URL,
  headers: Record<string, string>,
  timeoutMs: number,
  body?: Buffer,
): Promise<ProbeAnswer> {
  const started = performance.now();
  const answer = await request(url, {
    dispatcher,
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const chunks: Buffer[] = [];
  let firstByteMs: number | null = null;
  let cut: string | null = null;
  try {
    for await (const chunk of answer.body) {
      firstByteMs ??= performance.now() - started;
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
  } catch (error) {
    cut = (error as Error).message;
  }
  return {
    status: answer.statusCode,
    headers: flat(answer.headers),
    body: Buffer.concat(chunks),
    firstByteMs,
    totalMs: performance.now() - started,
    cut,
  };
}
