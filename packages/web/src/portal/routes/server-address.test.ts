import { describe, expect, it } from 'vitest';
import { splitServerAddress } from './server-address.js';

describe('splitServerAddress', () => {
  it('reads host and explicit port', () => {
    expect(splitServerAddress('http://192.168.1.20:19090')).toEqual({
      host: '192.168.1.20',
      port: 19090,
      https: false,
      path: '',
    });
  });

  it('fills in the default port of the scheme', () => {
    expect(splitServerAddress('https://play.example.org')).toMatchObject({ port: 443, https: true });
    expect(splitServerAddress('http://play.example.org/')).toMatchObject({
      port: 80,
      https: false,
      path: '',
    });
  });

  it('keeps a path prefix without its trailing slash', () => {
    expect(splitServerAddress('https://example.org/emby/')).toMatchObject({ path: '/emby' });
  });

  it('keeps IPv6 hosts in brackets', () => {
    expect(splitServerAddress('http://[::1]:19090')).toMatchObject({ host: '[::1]', port: 19090 });
  });

  it('refuses what is no http(s) address', () => {
    expect(splitServerAddress('ftp://example.org')).toBeNull();
    expect(splitServerAddress('not an address')).toBeNull();
  });
});
