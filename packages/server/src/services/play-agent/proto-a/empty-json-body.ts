import type { AppServer } from '../../../platform/http/create-server.js';

/**
 * Players send `Content-Type: application/json` on bodiless POST and DELETE requests (PlayedItems,
 * Sessions/Logout, System/Ping, …). Fastify's JSON parser refuses an empty body with 400; here an empty
 * body is no body (`undefined`), and anything else goes to Fastify's own parser, its guards included.
 */
export function acceptEmptyJsonBodies(app: AppServer): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });
}
