import { declareEndpoints, type EndpointSpec, type HttpMethod } from '../endpoint.js';

/**
 * A path below an announced client protocol this node never serves (PROTO_B, PROTO_C): always 503
 * PROTOCOL_NOT_SUPPORTED, so a player learns the protocol is off rather than that the server is not one.
 */
const unserved = (protocol: 'PROTO_B' | 'PROTO_C', method: HttpMethod) =>
  ({
    method,
    path: `/${protocol}/*`,
    summary: `${protocol} is not served by this node (503)`,
    tag: 'Play-agent',
    auth: { direct: 'player', access: 'anonymous' },
    errors: ['PROTOCOL_NOT_SUPPORTED'],
  }) as const satisfies EndpointSpec;

/**
 * Endpoints of the play-agent service besides its client protocol PROTO_A, whose routes are declared in
 * the play-agent itself (services/play-agent/proto-a/declarations.ts; docs/play-agent.md).
 */
export const playAgentEndpoints = declareEndpoints('play-agent', {
  unservedProtoBGet: unserved('PROTO_B', 'GET'),
  unservedProtoBPost: unserved('PROTO_B', 'POST'),
  unservedProtoBDelete: unserved('PROTO_B', 'DELETE'),
  unservedProtoCGet: unserved('PROTO_C', 'GET'),
  unservedProtoCPost: unserved('PROTO_C', 'POST'),
  unservedProtoCDelete: unserved('PROTO_C', 'DELETE'),
});
