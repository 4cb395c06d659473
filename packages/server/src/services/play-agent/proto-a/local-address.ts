import type { FastifyRequest } from 'fastify';
import type { ClientIpResolver } from '../../../platform/http/client-ip.js';
import { requestOrigin } from '../../../platform/http/request-origin.js';

/**
 * The address players are told this node answers at (LocalAddress of System/Info): public_base_url when
 * configured, else the address looked up from the config service (the node's external address), else how
 * the request reached the node: scheme and host from X-Forwarded-Proto / X-Forwarded-Host when the peer is
 * a trusted proxy (SVC_TRUSTED_PROXIES), the connection's own otherwise.
 */
export class LocalAddress {
  constructor(
    private readonly deps: {
      publicBaseUrl: string | undefined;
      lookedUp: () => string | undefined;
      proxies: ClientIpResolver;
    },
  ) {}

  of(request: FastifyRequest): string {
    const configured = this.deps.publicBaseUrl ?? this.deps.lookedUp();
    if (configured) return configured.replace(/\/+$/, '');
    const origin = requestOrigin(request, this.deps.proxies);
    // Only a request without Host (HTTP/1.0) names no host: the listener's own port on loopback then.
    const port = request.socket.localPort;
    return `${origin.protocol}://${origin.host ?? (port ? `127.0.0.1:${port}` : '127.0.0.1')}`;
  }
}
