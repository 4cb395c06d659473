import type { FastifyRequest } from 'fastify';
import type { ClientIpResolver } from './client-ip.js';
import { ENTRANCE_HOST_HEADER } from './route-auth.js';

/** A host name, IPv4 address or bracketed IPv6 address, with an optional port. */
const HOST_WITH_PORT = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The scheme and host (with the port, when one was named) a client used to reach a listener. */
export interface RequestOrigin {
  protocol: 'http' | 'https';
  /** Undefined when the request named no usable host. */
  host: string | undefined;
}

/** The first entry of a header that proxies may have turned into a comma-separated list. */
function firstEntry(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const first = text?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/** `value` when it is a host[:port], else undefined (a header is client input). */
export function validHost(value: string | undefined): string | undefined {
  return value !== undefined && HOST_WITH_PORT.test(value) ? value.toLowerCase() : undefined;
}

/** The host of a host[:port] without its port ('[::1]:80' → '[::1]'). */
export function hostnameOf(hostWithPort: string): string {
  return hostWithPort.replace(/:\d{1,5}$/, '');
}

/**
 * How the client reached this listener: X-Forwarded-Proto and X-Forwarded-Host when the socket peer is a
 * trusted proxy (SVC_TRUSTED_PROXIES), else the connection's own scheme and Host header. An untrusted
 * peer's forwarded headers are ignored, as its X-Forwarded-For is.
 */
export function requestOrigin(request: FastifyRequest, proxies: ClientIpResolver): RequestOrigin {
  const own: RequestOrigin = {
    protocol: request.protocol === 'https' ? 'https' : 'http',
    host: validHost(request.headers.host),
  };
  if (!proxies.trusts(request.socket.remoteAddress ?? '')) return own;
  const protocol = firstEntry(request.headers['x-forwarded-proto'])?.toLowerCase();
  return {
    protocol: protocol === 'https' || protocol === 'http' ? protocol : own.protocol,
    host: validHost(firstEntry(request.headers['x-forwarded-host'])) ?? own.host,
  };
}

/** The entrance host a service hop passed on (only believed with the service token). */
export function forwardedEntranceHost(request: FastifyRequest): string | undefined {
  if (!request.fromService) return undefined;
  return validHost(firstEntry(request.headers[ENTRANCE_HOST_HEADER]));
}

/**
 * The host the client reached the public entrance with: what the previous hop (the frontend) passed on
 * with the service token, else this request's own origin.
 */
export function entranceHostOf(request: FastifyRequest, proxies: ClientIpResolver): string | undefined {
  if (request.fromService) return forwardedEntranceHost(request);
  return requestOrigin(request, proxies).host;
}
