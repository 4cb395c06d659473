import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a server-side fetch of a user-given URL may connect to without the private-network
 * allowance (outbound webhooks; manual reverse-proxy addresses saved by accounts that are not admin).
 * Only globally routable unicast addresses pass: IPv4 `unicast` as ipaddr.js classifies it (not private,
 * loopback, link-local, 0.0.0.0/8, CGNAT, broadcast, multicast or reserved/documentation ranges), and IPv6
 * unicast inside 2000::/3. IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, IPv4-translated
 * ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by that IPv4 address; Teredo and
 * IPv4-compatible (::a.b.c.d) addresses are refused outright.
 */
export interface AddressVerdict {
  allowed: boolean;
  /** ipaddr.js' range name, or what the embedded IPv4 address is (e.g. `ipv4Mapped:loopback`). */
  range: string;
}

const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

function ipv4Verdict(address: ipaddr.IPv4, prefix = ''): AddressVerdict {
  const range = address.range();
  return { allowed: range === 'unicast', range: `${prefix}${range}` };
}

function embeddedIPv4(bytes: number[], offset: number): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.slice(offset, offset + 4));
}

/** Classifies an IP address literal (no brackets); anything that is not one is refused. */
export function classifyAddress(literal: string): AddressVerdict {
  const bare = literal.startsWith('[') && literal.endsWith(']') ? literal.slice(1, -1) : literal;
  if (!ipaddr.isValid(bare)) return { allowed: false, range: 'invalid' };
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return ipv4Verdict(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const bytes = v6.toByteArray();
  const range = v6.range();
  if (range === 'ipv4Mapped') return ipv4Verdict(v6.toIPv4Address(), 'ipv4Mapped:');
  if (range === 'rfc6145') return ipv4Verdict(embeddedIPv4(bytes, 12), 'ipv4Translated:');
  if (v6.match(NAT64)) return ipv4Verdict(embeddedIPv4(bytes, 12), 'nat64:');
  if (range === '6to4') return ipv4Verdict(embeddedIPv4(bytes, 2), '6to4:');
  if (range === 'teredo') return { allowed: false, range };
  // ::a.b.c.d (IPv4-compatible, deprecated) and everything else outside 2000::/3 is not global unicast.
  if (!v6.match(GLOBAL_UNICAST)) return { allowed: false, range: range === 'unicast' ? 'reserved' : range };
  return { allowed: range === 'unicast', range };
}

export const isPublicAddress = (address: string): boolean => classifyAddress(address).allowed;

/** Resolves a host name to every address it has (A and AAAA), as connecting would. */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The first address of a host (an IP literal, or every address its name resolves to) that is not public, or
 * null. A name that does not resolve (yet) has no such address.
 */
export async function nonPublicAddressOf(
  host: string,
  resolve: Resolver = systemResolver,
): Promise<{ address: string; range: string } | null> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(bare) ? [bare] : await resolve(bare).catch(() => []);
  for (const address of addresses) {
    const verdict = classifyAddress(address);
    if (!verdict.allowed) return { address, range: verdict.range };
  }
  return null;
}
