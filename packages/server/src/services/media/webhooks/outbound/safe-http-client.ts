import { isIP } from 'node:net';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { classifyAddress, systemResolver, type Resolver } from '../../../../platform/http/address-policy.js';

export { systemResolver, type Resolver };

/** May a connection go to this address and port? (Default: public unicast addresses only.) */
export type AddressPermission = (address: string, port: number) => boolean;

/** The target was refused by the SSRF guard: a private-network address, or a scheme other than http(s). */
export class BlockedTargetError extends Error {
  readonly code = 'SVC_WEBHOOK_TARGET_BLOCKED';
}

/** The request cannot be made at all (not a URL, too many redirects, a redirect without a target). */
export class InvalidTargetError extends Error {
  readonly code = 'SVC_WEBHOOK_TARGET_INVALID';
}

export interface SafeHttpClientOptions {
  /** Per request, redirects included. Default 10 s. */
  timeoutMs?: number;
  /** Redirects followed (each target checked again). Default 5. */
  maxRedirects?: number;
  /** Characters of the answer's body kept. Default 512. */
  excerptChars?: number;
  /** Default: the system resolver (getaddrinfo, every address). Tests inject names. */
  resolve?: Resolver;
  /** Default: classifyAddress(address).allowed. Applies only to endpoints without allowPrivateNetwork. */
  isPermitted?: AddressPermission;
}

export interface SafeHttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Deliver to private addresses too (the endpoint's allowPrivateNetwork). */
  allowPrivateNetwork: boolean;
  /** Header names (lower case) not sent on to another origin after a redirect, besides the usual ones. */
  sensitiveHeaders?: readonly string[];
  signal?: AbortSignal;
}

export interface SafeHttpOutcome {
  /** HTTP status of the final answer; null when there was none. */
  status: number | null;
  /** Seconds or date of a Retry-After header, in ms from now. */
  retryAfterMs: number | null;
  excerpt: string | null;
  /** Why there is no answer (connection, timeout, guard). */
  error: string | null;
  /** The guard or the URL refused the request: retrying cannot help. */
  refused: boolean;
  durationMs: number;
  redirects: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const ALWAYS_SENSITIVE = ['authorization', 'proxy-authorization', 'cookie'];

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error && error.message === 'fetch failed') return describeError(cause);
  return typeof code === 'string' && !code.startsWith('SVC_') && !error.message.includes(code)
    ? `${code}: ${error.message}`
    : error.message;
}

function retryAfter(header: string | string[] | undefined, now: number): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Parses a URL and checks its scheme; an IP literal host is checked by the connector like any address. */
export function parseTarget(raw: string | URL, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new InvalidTargetError('not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BlockedTargetError(
      `scheme ${url.protocol.replace(/:$/, '')} is not allowed (http and https only)`,
    );
  }
  return url;
}

/**
 * HTTP client for outbound webhooks with an SSRF guard at connect time. Every connection of an endpoint
 * without allowPrivateNetwork goes through a connector that resolves the host itself (or takes the IP
 * literal the WHATWG URL parser normalised: decimal, octal, hex and short IPv4 forms all arrive as
 * a.b.c.d), refuses when ANY resolved address is not public, and connects to the address it checked, so a
 * second DNS answer cannot swap it (no rebinding between check and connect). Redirects are followed by hand,
 * each new target parsed and connected through the same guard.
 */
export class SafeHttpClient {
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly excerptChars: number;
  private readonly guarded: Agent;
  private readonly open: Agent;

  constructor(options: SafeHttpClientOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.excerptChars = options.excerptChars ?? 512;
    const resolve = options.resolve ?? systemResolver;
    const isPermitted = options.isPermitted ?? ((address: string) => classifyAddress(address).allowed);
    const agent = (check: boolean) =>
      new Agent({
        connect: guardedConnector({
          resolve,
          isPermitted: check ? isPermitted : null,
          timeoutMs: this.timeoutMs,
        }),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        keepAliveTimeout: 4_000,
        connections: 8,
      });
    this.guarded = agent(true);
    this.open = agent(false);
  }

  async close(): Promise<void> {
    await Promise.all([this.guarded.close(), this.open.close()]);
  }

  /** Sends the request and follows redirects; never throws, the outcome says what happened. */
  async send(input: SafeHttpRequest): Promise<SafeHttpOutcome> {
    const started = Date.now();
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
    const sensitive = new Set([
      ...ALWAYS_SENSITIVE,
      ...(input.sensitiveHeaders ?? []).map((h) => h.toLowerCase()),
    ]);
    const dispatcher: Dispatcher = input.allowPrivateNetwork ? this.open : this.guarded;
    let redirects = 0;
    const outcome = (fields: Partial<SafeHttpOutcome>): SafeHttpOutcome => ({
      status: null,
      retryAfterMs: null,
      excerpt: null,
      error: null,
      refused: false,
      durationMs: Date.now() - started,
      redirects,
      ...fields,
    });
    try {
      let url = parseTarget(input.url);
      let method = input.method.toUpperCase();
      let body = method === 'GET' || method === 'HEAD' ? undefined : input.body;
      let headers = withCredentials(url, { ...input.headers });
      url = withoutCredentials(url);
      for (;;) {
        const response = await request(url, {
          method,
          headers,
          body,
          dispatcher,
          signal,
        });
        const location = response.headers.location;
        if (REDIRECTS.has(response.statusCode) && typeof location === 'string' && location.length > 0) {
          await response.body.dump().catch(() => undefined);
          if (redirects >= this.maxRedirects) {
            return outcome({
              status: response.statusCode,
              error: `more than ${this.maxRedirects} redirects`,
            });
          }
          redirects += 1;
          const next = parseTarget(location, url);
          if (
            response.statusCode === 303 ||
            ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')
          ) {
            method = 'GET';
            body = undefined;
            headers = Object.fromEntries(
              Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-type'),
            );
          }
          if (next.origin !== url.origin) {
            headers = Object.fromEntries(
              Object.entries(headers).filter(([name]) => !sensitive.has(name.toLowerCase())),
            );
          }
          headers = withCredentials(next, headers);
          url = withoutCredentials(next);
          continue;
        }
        const excerpt = await readExcerpt(response.body, this.excerptChars);
        return outcome({
          status: response.statusCode,
          retryAfterMs: retryAfter(response.headers['retry-after'], Date.now()),
          excerpt,
        });
      }
    } catch (error) {
      if (error instanceof BlockedTargetError || error instanceof InvalidTargetError) {
        return outcome({ error: error.message, refused: true });
      }
      if (timeout.aborted) return outcome({ error: `no answer within ${this.timeoutMs} ms` });
      if (input.signal?.aborted) return outcome({ error: 'cancelled (the service is stopping)' });
      return outcome({ error: describeError(error) });
    }
  }
}

function withCredentials(url: URL, headers: Record<string, string>): Record<string, string> {
  if (!url.username && !url.password) return headers;
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) return headers;
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  return { ...headers, authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

function withoutCredentials(url: URL): URL {
  if (!url.username && !url.password) return url;
  const copy = new URL(url);
  copy.username = '';
  copy.password = '';
  return copy;
}

async function readExcerpt(body: Dispatcher.ResponseData['body'], chars: number): Promise<string | null> {
  const limit = chars * 4;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) break;
    }
  } catch {
    // An answer cut short still has an excerpt of what came.
  } finally {
    body.destroy();
  }
  if (size === 0) return null;
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8').slice(0, chars);
}

/**
 * An undici connector that resolves the host, checks every address (when isPermitted is given) and connects
 * to the checked address. The TLS server name stays the host name (undici derives it from the origin).
 */
function guardedConnector(options: {
  resolve: Resolver;
  isPermitted: AddressPermission | null;
  timeoutMs: number;
}): buildConnector.connector {
  const connect = buildConnector({ timeout: options.timeoutMs });
  return (connectOptions, callback) => {
    const host = connectOptions.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(connectOptions.port) || (connectOptions.protocol === 'https:' ? 443 : 80);
    const addresses = async (): Promise<string[]> => {
      if (isIP(host)) return [host];
      let found: string[];
      try {
        found = await options.resolve(host);
      } catch (error) {
        throw new Error(`cannot resolve ${host}: ${describeError(error)}`);
      }
      if (found.length === 0) throw new Error(`cannot resolve ${host}: no address`);
      return found;
    };
    addresses()
      .then((found) => {
        if (options.isPermitted) {
          for (const address of found) {
            if (!options.isPermitted(address, port)) {
              const range = classifyAddress(address).range;
              const what = isIP(host) ? `${address} is` : `${host} resolves to ${address},`;
              throw new BlockedTargetError(
                `${what} not a public address (${range}); allow private networks on the endpoint to deliver there`,
              );
            }
          }
        }
        connect({ ...connectOptions, hostname: found[0]! }, callback);
      })
      .catch((error: Error) => callback(error, null));
  };
}
