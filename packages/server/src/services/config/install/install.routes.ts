import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { NodeInstallService } from './install.service.js';

/** The one answer of every invalid install request (spec: 403 with the one-line body '# invalid token'). */
export const INVALID_TOKEN_BODY = '# invalid token\n';

const isSet = (value: unknown): boolean => value === 'true' || value === '1';

/**
 * GET /api/config/nodes/install/{token}/{kind}[?ffmpeg=true]: a bash script for `curl -fsSL … | bash`.
 * The route checks the node token itself (own-credential); through the console entrance the gateway
 * forwards it with the rule `node-token`. Answers are plain text, never the JSON error body, because they
 * are piped into bash; the declared params and query accept anything, so every bad request gets the same 403.
 */
export function registerNodeInstallRoutes(app: AppServer, install: NodeInstallService): void {
  serve(app, endpoints.config.getInstallScript, async (request, reply) => {
    const { token, kind } = request.params;
    const answer = await install.script(token, kind, isSet(request.query.ffmpeg));
    void reply
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .type('text/plain; charset=utf-8');
    if (answer.kind === 'invalid') return reply.status(403).send(INVALID_TOKEN_BODY);
    return reply.status(200).send(answer.script);
  });
}
