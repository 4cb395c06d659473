import type { FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function normalise(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = address.trim().replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return undefined;
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
}

/**
 * Decides the client address: the socket peer, unless that peer is a trusted proxy, in which case
 * X-Forwarded-For is walked from the right, skipping trusted proxies, and the first untrusted entry
 * wins. An untrusted peer's X-Forwarded-For is ignored, so a client cannot claim another address.
 */
export class ClientIpResolver {
  private readonly ranges: Range[];

  constructor(trusted: readonly string[]) {
    this.ranges = trusted.map((entry) => {
      if (entry.includes('/')) return ipaddr.parseCIDR(entry);
      const address = ipaddr.parse(entry);
      return [address, address.kind() === 'ipv4' ? 32 : 128] as Range;
    });
  }

  private isTrusted(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.ranges.some(([range, bits]) => address.kind() === range.kind() && address.match(range, bits));
  }

  /** True when the socket peer is a trusted proxy, whose X-Forwarded-* headers may be believed. */
  trusts(socketAddress: string): boolean {
    const peer = normalise(socketAddress);
    return peer !== undefined && this.isTrusted(peer);
  }

  /**
   * The client address of a request at an entrance: the one the frontend passed on with the service
   * token (its hop is ours whatever SVC_TRUSTED_PROXIES says), else resolved from the socket peer.
   */
  of(request: FastifyRequest): string {
    if (request.fromService) return request.clientIp;
    return this.resolve(request.socket.remoteAddress ?? '', request.headers['x-forwarded-for']);
  }

  resolve(socketAddress: string, forwardedFor: string | string[] | undefined): string {
    const peer = normalise(socketAddress);
    if (!peer) return socketAddress;
    if (!this.isTrusted(peer)) return peer.toString();
    const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    let client = peer;
    for (let i = chain.length - 1; i >= 0; i--) {
      const hop = normalise(chain[i]!);
      if (!hop) break;
      client = hop;
      if (!this.isTrusted(hop)) break;
    }
    return client.toString();
  }
}

/** Validates one trusted-proxy entry (an IP address or a CIDR range). */
export function isValidProxyEntry(entry: string): boolean {
  try {
    if (entry.includes('/')) ipaddr.parseCIDR(entry);
    else ipaddr.parse(entry);
    return true;
  } catch {
    return false;
  }
}
