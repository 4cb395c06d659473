import { declareEndpoints } from '../endpoint.js';

/** Endpoints of the shared service (docs/architecture.md "Endpoints"). */
export const sharedEndpoints = declareEndpoints('shared', {});
