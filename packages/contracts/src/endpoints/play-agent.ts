import { declareEndpoints } from '../endpoint.js';

/** Endpoints of the play-agent service (docs/architecture.md "Endpoints"). */
export const playAgentEndpoints = declareEndpoints('play-agent', {});
