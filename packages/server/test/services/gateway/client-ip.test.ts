import { describe, expect, it } from 'vitest';
import { ClientIpResolver } from '../../../src/platform/http/client-ip.js';

describe('client address behind proxies', () => {
  const resolver = new ClientIpResolver(['127.0.0.1/8', '::1', '10.0.0.5']);

  it.each([
    ['a direct client: the socket', '203.0.113.10', undefined, '203.0.113.10'],
    [
      'an untrusted peer cannot claim another address',
      '203.0.113.10',
      '127.0.0.1, 198.51.100.1',
      '203.0.113.10',
    ],
    ['a trusted proxy is believed', '127.0.0.1', '198.51.100.1', '198.51.100.1'],
    [
      'spoofed entries left of the real client are ignored',
      '127.0.0.1',
      '1.2.3.4, 198.51.100.1',
      '198.51.100.1',
    ],
    ['a chain of trusted proxies is walked', '127.0.0.1', '198.51.100.1, 10.0.0.5', '198.51.100.1'],
    ['IPv4-mapped peers are normalised', '::ffff:127.0.0.1', '198.51.100.2', '198.51.100.2'],
    ['a trusted proxy without header is the client', '127.0.0.1', undefined, '127.0.0.1'],
    ['garbage in the header stops the walk', '127.0.0.1', 'not-an-ip', '127.0.0.1'],
    ['only trusted hops: the leftmost', '127.0.0.1', '10.0.0.5', '10.0.0.5'],
  ])('%s', (_name, socket, forwarded, expected) => {
    expect(resolver.resolve(socket, forwarded)).toBe(expected);
  });

  it('trusts nobody when the list is empty', () => {
    expect(new ClientIpResolver([]).resolve('127.0.0.1', '198.51.100.1')).toBe('127.0.0.1');
  });
});
