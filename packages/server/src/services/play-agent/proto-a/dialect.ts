import type { FastifyRequest } from 'fastify';
import type { ServerIdentity } from './dto.js';

/**
 * Which client family a request comes from. Both speak PROTO_A, but each refuses a server that names
 * itself like the other: Jellyfin apps want the product name `Jellyfin Server` and a 10.x version, Emby
 * apps a 4.x version (their connection manager turns away anything above 8.0). See docs/play-agent.md.
 */
export type ClientDialect = 'emby' | 'jellyfin';

/** What a dialect announces as the server, in the protocol's field names. */
export interface AnnouncedProduct {
  ProductName: string;
  Version: string;
}

/**
 * The Jellyfin server line whose API the Jellyfin forms of PROTO_A follow. Its clients need at least
 * 10.10.0 (TypeScript SDK, jellyfin-web) and 10.11.0 (Kotlin SDK 1.8: Android, Android TV, Findroid).
 */
export const JELLYFIN_PRODUCT: AnnouncedProduct = { ProductName: 'Jellyfin Server', Version: '10.11.11' };

/** Path prefixes players put before every route; the prefix names the family. */
const CLIENT_PREFIX = /^\/(emby|mediabrowser|jellyfin)(?=\/|\?|$)/i;

/** `Authorization: Emby …` (Emby's documented form; Jellyfin's SDKs write `MediaBrowser`). */
const EMBY_SCHEME = /^[ \t]*emby(?:[ \t]|$)/i;

/** Headers (and, for Emby web, query parameters) that only Emby's clients send. */
const EMBY_ONLY_VALUES = ['x-emby-client', 'x-emby-device-id', 'x-emby-device-name', 'x-emby-client-version'];

/** The URL with a client prefix removed (`/emby/Items` → `/Items`), for routing. */
export function stripClientPrefix(url: string): string {
  const rewritten = url.replace(CLIENT_PREFIX, '');
  return rewritten === '' || rewritten.startsWith('?') ? `/${rewritten}` : rewritten;
}

/**
 * The family of a request, by the strongest sign first: the path prefix (`/emby`, `/mediabrowser`:
 * Emby; `/jellyfin`: Jellyfin), then the authorization Emby apps send (`X-Emby-Authorization`, scheme
 * `Emby`, Emby's separate values as headers or query parameters). Jellyfin's SDKs send
 * `Authorization: MediaBrowser …` and jellyfin-web's first request carries nothing: both are Jellyfin.
 */
export function dialectOf(request: FastifyRequest): ClientDialect {
  const prefix = CLIENT_PREFIX.exec(request.originalUrl)?.[1]?.toLowerCase();
  if (prefix) return prefix === 'jellyfin' ? 'jellyfin' : 'emby';
  const { headers } = request;
  if (headers['x-emby-authorization'] !== undefined) return 'emby';
  const authorization = headers.authorization;
  if (typeof authorization === 'string' && EMBY_SCHEME.test(authorization)) return 'emby';
  const query = request.query;
  const queryNames =
    query && typeof query === 'object' ? Object.keys(query).map((name) => name.toLowerCase()) : [];
  const embyOnly = EMBY_ONLY_VALUES.some((name) => headers[name] !== undefined || queryNames.includes(name));
  return embyOnly ? 'emby' : 'jellyfin';
}

/** The product name and version this request's family accepts. */
export function announcedProduct(request: FastifyRequest, server: ServerIdentity): AnnouncedProduct {
  if (dialectOf(request) === 'jellyfin') return JELLYFIN_PRODUCT;
  return { ProductName: server.productName, Version: server.version };
}
