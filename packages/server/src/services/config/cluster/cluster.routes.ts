import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { AppError } from '../../../platform/http/errors.js';
import { classifyAddress } from '../../../platform/http/address-policy.js';
import type { ClusterLicenceService } from './cluster-licence.service.js';

const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'linkLocal']);

/** Loopback, RFC 1918, IPv6 unique-local and link-local peers (IPv4-mapped forms judged by their IPv4). */
export function isPrivatePeer(address: string): boolean {
  const range = classifyAddress(address).range.replace(/^ipv4Mapped:/, '');
  return PRIVATE_RANGES.has(range);
}

/** Private peers only: the listener must never be reached from a public address (spec, 18089). */
export function refusePublicPeers(app: AppServer): void {
  app.addHook('onRequest', async (request) => {
    if (!isPrivatePeer(request.socket.remoteAddress ?? '')) {
      throw new AppError(403, 'FORBIDDEN', 'the cluster licence sync answers private addresses only');
    }
  });
}

export function registerClusterRoutes(app: AppServer, cluster: ClusterLicenceService): void {
  refusePublicPeers(app);
  serve(app, endpoints.cluster.clusterLicenceStatus, () => cluster.status());
  serve(app, endpoints.cluster.clusterLicenceRefresh, () => cluster.refreshNow());
}
