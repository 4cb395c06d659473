import { declareEndpoints } from '../endpoint.js';
import { clusterLicenceStatusSchema } from '../cluster-licence.js';

/**
 * The cluster licence sync listener (18089) of DISTRIBUTED control instances: service token only, and only from
 * loopback or private addresses; the gateway never forwards to it (docs/licences.md).
 */
export const clusterEndpoints = declareEndpoints('config', {
  clusterLicenceStatus: {
    method: 'GET',
    path: '/api/config/internal/cluster/licence',
    summary: 'Who holds the licence lease, the licence it last verified and the control instances seen',
    tag: 'Internal',
    auth: { service: true },
    response: clusterLicenceStatusSchema,
    errors: ['FORBIDDEN'],
  },
  clusterLicenceRefresh: {
    method: 'POST',
    path: '/api/config/internal/cluster/licence/refresh',
    summary: 'Asks this instance to re-verify the licence now if it holds the lease (after an activation)',
    tag: 'Internal',
    auth: { service: true },
    response: clusterLicenceStatusSchema,
    errors: ['FORBIDDEN'],
  },
});
