import { describe, expect, it } from 'vitest';
import { allowedRedirectHost } from '../../src/services/play-agent/redirect/allowed-hosts.js';

const resolvable = new Set(['cdn.example.com']);
const resolve = async (host: string) => {
  if (!resolvable.has(host)) throw new Error('ENOTFOUND');
  return { address: '203.0.113.7' };
};

describe('allowed redirect hosts', () => {
  it('with suffixes: the host must be a suffix or below one', async () => {
    const suffixes = ['example.com', '.drive.test'];
    expect(await allowedRedirectHost('https://example.com/a', suffixes, resolve)).toBe('example.com');
    expect(await allowedRedirectHost('https://a.b.example.com/a', suffixes, resolve)).toBe('a.b.example.com');
    expect(await allowedRedirectHost('http://x.drive.test/a', suffixes, resolve)).toBe('x.drive.test');
    expect(await allowedRedirectHost('https://badexample.com/a', suffixes, resolve)).toBeNull();
    expect(await allowedRedirectHost('https://example.com.evil.net/a', suffixes, resolve)).toBeNull();
    expect(await allowedRedirectHost('ftp://example.com/a', suffixes, resolve)).toBeNull();
    expect(await allowedRedirectHost('https://user:pw@example.com/a', suffixes, resolve)).toBeNull();
  });

  it('without suffixes: https and a host that resolves', async () => {
    expect(await allowedRedirectHost('https://cdn.example.com/a?x=1', [], resolve)).toBe('cdn.example.com');
    expect(await allowedRedirectHost('http://cdn.example.com/a', [], resolve)).toBeNull();
    expect(await allowedRedirectHost('https://nowhere.example.org/a', [], resolve)).toBeNull();
    expect(await allowedRedirectHost('not a url', [], resolve)).toBeNull();
  });
});
