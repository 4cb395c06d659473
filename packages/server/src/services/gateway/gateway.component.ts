import { createServer } from '../../platform/http/create-server.js';
import { enableStreamingProxy, forward } from '../../platform/http/stream-proxy.js';
import { AppError } from '../../platform/http/errors.js';
import { SERVICE_TOKEN_HEADER } from '../../platform/service-token.js';
import type { ComponentFactory } from '../../runtime/component.js';
import { bindHostFor } from '../../runtime/bind.js';
import { matchGatewayRoute } from './gateway-routes.js';
import { UpstreamResolver } from './upstream-resolver.js';

/** Gateway (18086): routes the public API to the services, streaming bodies both ways. */
export const createGatewayComponent: ComponentFactory = async (context) => {
  const app = createServer({ component: 'gateway', logger: context.logger.child({ component: 'gateway' }) });
  await enableStreamingProxy(app, {});
  const resolver = new UpstreamResolver({
    registry: context.registry,
    configBaseUrl: context.settings.configBaseUrl,
    defaultStorageNodeId: context.settings.embeddedStorageNodeId,
  });

  app.all('/api/*', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const route = matchGatewayRoute(path);
    if (!route) throw new AppError(404, 'NOT_FOUND', `no route for ${request.method} ${path}`);
    const nodeHeader = request.headers['x-storage-node-id'];
    const upstream = await resolver.resolve(
      route.service,
      typeof nodeHeader === 'string' ? nodeHeader : undefined,
    );
    return forward(request, reply, upstream, {
      // The service token is ours alone: a caller can never pass one through the public entrance.
      requestHeaders: (headers) => {
        const copy = { ...headers };
        delete copy[SERVICE_TOKEN_HEADER];
        return copy;
      },
      responseHeaders: (headers) =>
        String(headers['content-type'] ?? '').startsWith('text/event-stream')
          ? { ...headers, 'x-accel-buffering': 'no', 'cache-control': 'no-cache' }
          : headers,
    });
  });

  return {
    name: 'gateway',
    app,
    host: bindHostFor(context, 'gateway'),
    port: context.settings.ports.gateway,
    registration: { service: 'svc-gateway' },
  };
};
