import { declareEndpoints } from '../endpoint.js';

/** Endpoints of the user service (docs/architecture.md "Endpoints"). */
export const userEndpoints = declareEndpoints('user', {});
