import { createServer } from '../../platform/http/create-server.js';
import { enableStreamingProxy, forward } from '../../platform/http/stream-proxy.js';
import { AppError } from '../../platform/http/errors.js';
import { ClientIpResolver } from '../../platform/http/client-ip.js';
import { entranceHostOf } from '../../platform/http/request-origin.js';
import { IDENTITY_HEADER, encodeIdentity, entranceHeaders } from '../../platform/http/route-auth.js';
import type { ComponentFactory } from '../../runtime/component.js';
import { bindHostFor } from '../../runtime/bind.js';
import { matchGatewayRoute } from './gateway-routes.js';
import { GATEWAY_ROUTE_TABLE, GatewayRouteMatcher, type GatewayRouteEntry } from './route-table.js';
import { authenticate } from './gateway-auth.js';
import { TokenIntrospector } from './token-introspector.js';
import { UpstreamResolver } from './upstream-resolver.js';
import { registerMcpEndpoint } from './mcp/mcp-endpoint.js';
import { registerOpenApiRoute } from './openapi.routes.js';
import { McpSwitch } from './mcp/mcp-switch.js';
import { UpstreamCaller } from './mcp/upstream-call.js';
import { SVC_VERSION } from '../../platform/version.js';

/** Gateway (18086): authenticates, applies the route table's rule and streams the request to its service. */
export const createGatewayComponent: ComponentFactory = (context) =>
  gatewayFactory(GATEWAY_ROUTE_TABLE)(context);

/** A gateway over a given route table (tests add routes of their own). */
export const gatewayFactory =
  (table: readonly GatewayRouteEntry[]): ComponentFactory =>
  async (context) => {
    const app = createServer({
      serviceToken: context.serviceToken,
      component: 'gateway',
      logger: context.logger.child({ component: 'gateway' }),
    });
    await enableStreamingProxy(app, {});
    const resolver = new UpstreamResolver({
      registry: context.registry,
      configBaseUrl: context.settings.configBaseUrl,
      defaultStorageNodeId: context.settings.embeddedStorageNodeId,
    });
    const matcher = new GatewayRouteMatcher(table);
    const clientIps = new ClientIpResolver(context.settings.trustedProxies);
    const introspector = new TokenIntrospector({
      serviceToken: context.serviceToken,
      userServiceUrl: () => resolver.resolve('svc-user', undefined),
      cache: context.cache,
      clock: context.clock,
      logger: context.logger,
    });

    registerOpenApiRoute(app);
    app.all('/api/*', { config: { auth: { direct: 'entrance' } } }, async (request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      const route = matchGatewayRoute(path);
      const entry = route ? matcher.match(request.method, path) : undefined;
      if (!route || !entry) throw new AppError(404, 'NOT_FOUND', `no route for ${request.method} ${path}`);
      const clientIp = clientIps.of(request);
      const identity = await authenticate(entry.rule, request, clientIp, introspector);
      const nodeHeader = request.headers['x-storage-node-id'];
      const upstream = await resolver.resolve(
        route.service,
        typeof nodeHeader === 'string' ? nodeHeader : undefined,
      );
      return forward(request, reply, upstream, {
        requestHeaders: (headers) => {
          const copy = entranceHeaders(
            headers,
            context.serviceToken,
            clientIp,
            entranceHostOf(request, clientIps),
          );
          // Credentials stop here: services learn who is calling from the identity header.
          delete copy['x-admin-token'];
          if (identity) delete copy.authorization;
          if (identity) copy[IDENTITY_HEADER] = encodeIdentity(identity);
          return copy;
        },
        responseHeaders: (headers) =>
          String(headers['content-type'] ?? '').startsWith('text/event-stream')
            ? { ...headers, 'x-accel-buffering': 'no', 'cache-control': 'no-cache' }
            : headers,
      });
    });

    registerMcpEndpoint(app, {
      mcpSwitch: new McpSwitch({
        configBaseUrl: context.settings.configBaseUrl,
        serviceToken: context.serviceToken,
        clock: context.clock,
        logger: context.logger,
      }),
      introspector,
      clientIps,
      caller: new UpstreamCaller({ matcher, resolver, serviceToken: context.serviceToken }),
      version: SVC_VERSION,
    });

    return {
      name: 'gateway',
      app,
      host: bindHostFor(context, 'gateway'),
      port: context.settings.ports.gateway,
      registration: { service: 'svc-gateway' },
      start: () => introspector.start(),
      stop: () => introspector.stop(),
    };
  };
