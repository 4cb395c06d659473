import { lookup, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * True for addresses on the public internet. Loopback, private, link-local, unique-local, CGNAT,
 * multicast and reserved ranges are not; IPv4-mapped and NAT64 IPv6 forms are judged by their IPv4.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return false;
  let parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (v6.range() === 'rfc6052') {
      const bytes = v6.toByteArray().slice(12);
      parsed = ipaddr.fromByteArray(bytes);
    }
  }
  return parsed.range() === 'unicast';
}

export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

/**
 * A `lookup` for net.connect that drops non-public addresses: the check happens at connect time on the
 * address actually dialled, so DNS rebinding cannot slip a private address in after a check.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
  const allOptions: LookupAllOptions = { family, hints: options.hints, all: true };
  lookup(hostname, allOptions, (error, addresses) => {
    if (error) return callback(error, []);
    const allowed = addresses.filter((entry) => isPublicAddress(entry.address));
    const first = allowed[0];
    if (!first) {
      return callback(new PrivateAddressError(`${hostname} resolves only to private or local addresses`), []);
    }
    if (options.all) callback(null, allowed);
    else callback(null, first.address, first.family);
  });
};

/** For a URL whose host is an IP literal (no lookup happens): whether it may be dialled. */
export function literalHostAllowed(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return isIP(bare) === 0 || isPublicAddress(bare);
}
