import path from 'node:path';
import { readFile } from 'node:fs/promises';
import fastifyStatic from '@fastify/static';
import { createServer } from '../../platform/http/create-server.js';
import { enableStreamingProxy, forward } from '../../platform/http/stream-proxy.js';
import { ClientIpResolver } from '../../platform/http/client-ip.js';
import { entranceHeaders } from '../../platform/http/route-auth.js';
import { entranceHostOf } from '../../platform/http/request-origin.js';
import type { ComponentFactory } from '../../runtime/component.js';
import { bindHostFor } from '../../runtime/bind.js';
import { documentHeaders } from './document-headers.js';
import { findWebRoot, listFiles } from './web-root.js';

/** The console entrance's request-body limit (uploads larger than this are chunked by the console). */
export const CONSOLE_BODY_LIMIT = 20 * 1024 * 1024;

/** Frontend (18080): serves the web app and streams /api/* and /mcp to the gateway on the same machine. */
export const createFrontendComponent: ComponentFactory = async (context) => {
  const { settings, topology } = context;
  const app = createServer({
    serviceToken: context.serviceToken,
    component: 'frontend',
    logger: context.logger.child({ component: 'frontend' }),
  });
  await enableStreamingProxy(app, { bodyLimit: CONSOLE_BODY_LIMIT });
  const gateway = `http://127.0.0.1:${settings.ports.gateway}`;
  const clientIps = new ClientIpResolver(settings.trustedProxies);

  const proxy = async (request: Parameters<typeof forward>[0], reply: Parameters<typeof forward>[1]) =>
    forward(request, reply, gateway, {
      requestHeaders: (headers) => {
        // The hop to the gateway is ours: it carries the client address the login lock keys on, which
        // the gateway believes with the service token only (docs/auth.md, Gateway).
        // It also carries the host the user reached the console with (the playback routes' direct address).
        const copy = entranceHeaders(
          headers,
          context.serviceToken,
          clientIps.of(request),
          entranceHostOf(request, clientIps),
        );
        // In standalone the console always talks to the built-in storage node.
        if (topology === 'standalone') copy['x-storage-node-id'] = settings.embeddedStorageNodeId;
        return copy;
      },
    });
  const entrance = { config: { auth: { direct: 'entrance' } } } as const;
  app.all('/api/*', entrance, proxy);
  app.all('/mcp', entrance, proxy);
  app.all('/mcp/*', entrance, proxy);

  const webRoot = findWebRoot(settings.webDir);
  if (webRoot) {
    // @fastify/static only sends the files; the one route below carries the entrance rule.
    await app.register(fastifyStatic, { root: webRoot, serve: false });
    const files = listFiles(webRoot);
    const indexHtml = await readFile(path.join(webRoot, 'index.html'));
    const indexHeaders = documentHeaders(indexHtml.toString('utf8'));
    app.get('/*', entrance, async (request, reply) => {
      const wanted = (request.params as { '*': string })['*'];
      if (files.has(wanted) && wanted !== 'index.html') {
        // Built assets carry a content hash in their names and never change.
        if (wanted.startsWith('assets/'))
          reply.header('cache-control', 'public, max-age=31536000, immutable');
        return reply.sendFile(wanted);
      }
      // Client-side routes of the single-page app all load the same document.
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .headers(indexHeaders)
        .send(indexHtml);
    });
  } else {
    app.get('/*', entrance, async (_request, reply) =>
      reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The web console is not built. Run `npm run build` (npm start does this).\n'),
    );
  }

  return {
    name: 'frontend',
    app,
    host: bindHostFor(context, 'frontend'),
    port: settings.ports.frontend,
    registration: { service: 'svc-frontend' },
  };
};
