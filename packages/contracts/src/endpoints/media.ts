import { declareEndpoints } from '../endpoint.js';

/** Endpoints of the media service (docs/architecture.md "Endpoints"). */
export const mediaEndpoints = declareEndpoints('media', {});
