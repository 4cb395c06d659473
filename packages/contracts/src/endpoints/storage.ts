import { declareEndpoints } from '../endpoint.js';

/** Endpoints of the storage service (docs/architecture.md "Endpoints"). */
export const storageEndpoints = declareEndpoints('storage', {});
