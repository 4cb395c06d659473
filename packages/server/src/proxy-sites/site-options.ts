/**
 * What the reverse-proxy generator needs to know (docs/reverse-proxy.md). Pure data and checks: the CLI
 * (`svc proxy`) and the config service's manual-address snippet build the same sites from it.
 */

export type ProxyTopology = 'standalone' | 'distributed';

export interface ProxySite {
  /** The site's server name (a domain); the two sites must differ (rule 1 of the spec). */
  serverName: string;
  certificate: string;
  certificateKey: string;
  /** host:port the site forwards to. */
  upstream: string;
}

export interface ProxySitesOptions {
  topology: ProxyTopology;
  console: ProxySite;
  playback: ProxySite & { endpointToken: string };
  /** Port the HTTPS sites listen on (443 in production; tests use a free loopback port). */
  httpsPort: number;
  /** Port of the plain-HTTP redirect to HTTPS; 0 leaves it out. */
  httpPort: number;
  /** Address to listen on; empty means every address. */
  listenAddress: string;
  /** Read and write timeouts between two reads or writes, in seconds. */
  consoleTimeoutSeconds: number;
  playbackTimeoutSeconds: number;
}

/** The parameter table of the spec: the values every generated site uses unless told otherwise. */
export const PROXY_DEFAULTS = {
  consoleUpstream: '127.0.0.1:18080',
  playAgentPort: 19090,
  consoleBodyLimitMb: 20,
  consoleTimeoutSeconds: 600,
  playbackTimeoutSeconds: 3600,
  httpsPort: 443,
  httpPort: 80,
  hstsMaxAgeSeconds: 31_536_000,
} as const;

/** Ports a public proxy must never forward to: the config service, the licence sync, the database, the cache. */
export const FORBIDDEN_UPSTREAM_PORTS = [5432, 6379, 18085, 18089] as const;
const CONSOLE_PORT = 18080;

export class ProxySiteError extends Error {}

const SERVER_NAME =
  /^(?=.{1,253}$)(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const UPSTREAM = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;
/** Endpoint tokens and paths end up inside the configuration text: no quotes, spaces or braces. */
const SAFE_WORD = /^[A-Za-z0-9_./:@+=-]+$/;

function upstreamPort(site: string, upstream: string): number {
  const match = UPSTREAM.exec(upstream);
  if (!match) throw new ProxySiteError(`${site} upstream must be host:port, got '${upstream}'`);
  return Number(match[2]);
}

function checkSite(label: string, site: ProxySite): number {
  if (!SERVER_NAME.test(site.serverName))
    throw new ProxySiteError(`${label} server name '${site.serverName}' is not a domain name`);
  for (const [what, value] of [
    ['certificate', site.certificate],
    ['certificate key', site.certificateKey],
  ] as const) {
    if (!SAFE_WORD.test(value)) throw new ProxySiteError(`${label} ${what} path '${value}' is not usable`);
  }
  const port = upstreamPort(label, site.upstream);
  if ((FORBIDDEN_UPSTREAM_PORTS as readonly number[]).includes(port))
    throw new ProxySiteError(`${label} upstream port ${port} must never be proxied to the outside`);
  return port;
}

/** Throws ProxySiteError when the sites would break one of the spec's proxy rules. */
export function checkProxySites(options: ProxySitesOptions): void {
  checkSite('console', options.console);
  const playbackPort = checkSite('playback', options.playback);
  if (options.console.serverName.toLowerCase() === options.playback.serverName.toLowerCase())
    throw new ProxySiteError('the console and the playback site need different server names');
  if (playbackPort === CONSOLE_PORT)
    throw new ProxySiteError('the playback site must forward to a play-agent, not to the console (18080)');
  if (!SAFE_WORD.test(options.playback.endpointToken))
    throw new ProxySiteError('the endpoint token is missing or malformed');
  for (const [what, value] of [
    ['console timeout', options.consoleTimeoutSeconds],
    ['playback timeout', options.playbackTimeoutSeconds],
  ] as const) {
    if (!Number.isInteger(value) || value < 1)
      throw new ProxySiteError(`${what} must be a whole number of seconds`);
  }
  for (const [what, value] of [
    ['HTTPS port', options.httpsPort],
    ['HTTP port', options.httpPort],
  ] as const) {
    if (!Number.isInteger(value) || value < 0 || value > 65_535 || (what === 'HTTPS port' && value === 0))
      throw new ProxySiteError(`${what} ${value} is not a port`);
  }
  if (options.listenAddress !== '' && !SAFE_WORD.test(options.listenAddress))
    throw new ProxySiteError(`listen address '${options.listenAddress}' is not usable`);
}

/** Let's Encrypt's layout, the most common place for a site's certificate. */
export const defaultCertificate = (serverName: string) => ({
  certificate: `/etc/letsencrypt/live/${serverName}/fullchain.pem`,
  certificateKey: `/etc/letsencrypt/live/${serverName}/privkey.pem`,
});
