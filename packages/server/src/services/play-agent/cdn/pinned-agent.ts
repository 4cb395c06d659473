import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';

/** Trust and keep-alive of the agents that reach the CDN and the DoH resolvers. */
export interface CdnAgentOptions {
  /** Extra trusted CA certificates (PEM), besides the system's; absent = the system's only. */
  ca?: string;
}

const KEEP_ALIVE_MS = 30_000;

/** The system's roots plus the extra CA: Node's `ca` option replaces the roots, it does not add to them. */
function trusted(options: CdnAgentOptions): { ca?: string[] } {
  return options.ca ? { ca: [...rootCertificates, options.ca] } : {};
}

/**
 * An agent whose every connection goes to `ip`, whatever host name the URL names: the host name still
 * travels as TLS SNI and the certificate is still checked against it (and as the Host header).
 */
export function pinnedAgent(ip: string, options: CdnAgentOptions = {}): Agent {
  const family = isIP(ip);
  if (family === 0) throw new Error(`${ip} is not an IP address`);
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: ip, family },
      ]);
    } else {
      callback(null, ip, family);
    }
  };
  return new Agent({
    connections: 16,
    keepAliveTimeout: KEEP_ALIVE_MS,
    connect: { lookup, ...trusted(options) },
  });
}

/** An agent that resolves host names the usual way (before any address was measured). */
export function resolvingAgent(options: CdnAgentOptions = {}): Agent {
  return new Agent({
    connections: 16,
    keepAliveTimeout: KEEP_ALIVE_MS,
    connect: trusted(options),
  });
}
