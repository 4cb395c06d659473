import type { AppServer } from '../../../platform/http/create-server.js';
import { protoA } from './declarations.js';
import { registerProtoA } from './registrar.js';

const ALLOWED_HEADERS = [
  'Content-Type',
  'Range',
  'Authorization',
  'X-Emby-Authorization',
  'X-Emby-Token',
  'X-MediaBrowser-Token',
  'X-SVC-Endpoint-Token',
].join(', ');

/**
 * Web players (the portal, Jellyfin/Emby web clients) run on another origin than the play-agent. Their
 * requests carry the token in a header or the query, never in a cookie, so any origin may call and no
 * credentials mode is involved: answers say `*` and preflights are answered before sign-in.
 */
export function allowBrowserClients(app: AppServer): void {
  app.addHook('onRequest', async (request, reply) => {
    if (typeof request.headers.origin !== 'string') return;
    reply.header('access-control-allow-origin', '*');
    reply.header(
      'access-control-expose-headers',
      'Content-Range, Accept-Ranges, Content-Length, Content-Type',
    );
  });
  // Answered even while PROTO_A is off: the preflight of a 503 must succeed for the browser to read it.
  registerProtoA(app, protoA.Preflight, {
    handler: async (_request, reply) =>
      reply
        .status(204)
        .header('access-control-allow-methods', 'GET, HEAD, POST, DELETE, OPTIONS')
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', '86400')
        .send(),
  });
}
