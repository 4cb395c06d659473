import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  JELLYFIN_PRODUCT,
  announcedProduct,
  dialectOf,
  stripClientPrefix,
} from '../../../src/services/play-agent/proto-a/dialect.js';

/** A request as the routes see it: the URL before the prefix was removed, headers, parsed query. */
function requestOf(
  originalUrl: string,
  headers: Record<string, string> = {},
  query: Record<string, string> = {},
): FastifyRequest {
  return { originalUrl, headers, query } as unknown as FastifyRequest;
}

const server = {
  serverId: 'a'.repeat(32),
  serverName: 'Home',
  productName: 'Home Media',
  version: '4.8.10.0',
};

describe('the client dialect of a request', () => {
  it('follows the path prefix first', () => {
    expect(dialectOf(requestOf('/emby/System/Info/Public'))).toBe('emby');
    expect(dialectOf(requestOf('/EMBY?x=1'))).toBe('emby');
    expect(dialectOf(requestOf('/mediabrowser/Users/Public'))).toBe('emby');
    // An explicit Jellyfin prefix wins over Emby's header.
    expect(
      dialectOf(
        requestOf('/jellyfin/System/Info/Public', { 'x-emby-authorization': 'MediaBrowser Client="x"' }),
      ),
    ).toBe('jellyfin');
    // A path that only starts like a prefix is none.
    expect(dialectOf(requestOf('/embyish/System/Info/Public'))).toBe('jellyfin');
  });

  it("reads the authorization Emby apps send, and takes Jellyfin's and none as Jellyfin", () => {
    expect(
      dialectOf(requestOf('/System/Info/Public', { 'x-emby-authorization': 'MediaBrowser Client="a"' })),
    ).toBe('emby');
    expect(
      dialectOf(requestOf('/System/Info/Public', { authorization: 'Emby Client=Kodi,DeviceId=k' })),
    ).toBe('emby');
    expect(dialectOf(requestOf('/System/Info/Public', { 'x-emby-client': 'Emby Web' }))).toBe('emby');
    expect(dialectOf(requestOf('/System/Info/Public', {}, { 'X-Emby-Device-Id': 'web-1' }))).toBe('emby');
    expect(
      dialectOf(
        requestOf('/System/Info/Public', { authorization: 'MediaBrowser Client="Jellyfin Web", Token=""' }),
      ),
    ).toBe('jellyfin');
    expect(dialectOf(requestOf('/System/Info/Public', { authorization: 'Embyx Client=a' }))).toBe('jellyfin');
    expect(dialectOf(requestOf('/System/Info/Public'))).toBe('jellyfin');
    // A token alone names no family.
    expect(dialectOf(requestOf('/System/Info/Public', { 'x-emby-token': 't' }, { api_key: 't' }))).toBe(
      'jellyfin',
    );
  });

  it('announces the configured product to Emby apps and the Jellyfin product to Jellyfin apps', () => {
    expect(announcedProduct(requestOf('/emby/System/Info/Public'), server)).toEqual({
      ProductName: 'Home Media',
      Version: '4.8.10.0',
    });
    expect(announcedProduct(requestOf('/System/Info/Public'), server)).toEqual(JELLYFIN_PRODUCT);
    expect(JELLYFIN_PRODUCT.ProductName).toBe('Jellyfin Server');
  });
});

describe('removing the client prefix for routing', () => {
  it.each([
    ['/emby/Users/Public', '/Users/Public'],
    ['/Emby', '/'],
    ['/emby?format=json', '/?format=json'],
    ['/jellyfin/System/Info/Public', '/System/Info/Public'],
    ['/mediabrowser/Items', '/Items'],
    ['/embyish/Items', '/embyish/Items'],
    ['/Items/emby', '/Items/emby'],
  ])('%s → %s', (url, routed) => {
    expect(stripClientPrefix(url)).toBe(routed);
  });
});
