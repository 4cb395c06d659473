import {
  CLIENT_PROTOCOLS,
  IMPLEMENTED_CLIENT_PROTOCOLS,
  type ClientProtocol,
  type NodeAccessPolicyWarning,
  type PlayAgentPolicy,
  type UpdatePlayAgentPolicyRequest,
} from '@svc/contracts';
import type { NodeAccessValues } from '../users/node-access-form.js';

export type NodeAccessAdvice = NodeAccessPolicyWarning['code'];

/**
 * The server's advice for a default node access policy, known while editing (the server answers the same
 * codes after the save): an ALLOW_LIST without a play-agent node leaves new users unable to play, NONE
 * needs every new user authorized one by one.
 */
export function nodeAccessAdvice(values: NodeAccessValues): NodeAccessAdvice[] {
  if (values.mode === 'NONE') return ['NONE_FOR_NEW_USERS'];
  const hasNode = values.nodes.some((id) => id.trim() !== '');
  return values.mode === 'ALLOW_LIST' && !hasNode ? ['NO_PLAY_AGENT_NODE'] : [];
}

/** What the play-agent policy card edits; `metadataCacheTtlSeconds` is only shown. */
export interface PlayAgentPolicyValues {
  protocol: ClientProtocol;
  responseCache: boolean;
  driveARedirect: boolean;
}

export function playAgentPolicyValuesFrom(policy: PlayAgentPolicy): PlayAgentPolicyValues {
  return {
    protocol: policy.protocol,
    responseCache: policy.responseCache,
    driveARedirect: policy.driveARedirect,
  };
}

/** PUT /api/config/play-agent/policy: the three edited fields (the TTL is left as it is). */
export function toPlayAgentPolicyBody(values: PlayAgentPolicyValues): UpdatePlayAgentPolicyRequest {
  return {
    protocol: values.protocol,
    responseCache: values.responseCache,
    driveARedirect: values.driveARedirect,
  };
}

/** Every protocol, the ones play-agents do not implement yet shown but not selectable. */
export function protocolChoices(): { protocol: ClientProtocol; available: boolean }[] {
  const implemented: readonly ClientProtocol[] = IMPLEMENTED_CLIENT_PROTOCOLS;
  return CLIENT_PROTOCOLS.map((protocol) => ({ protocol, available: implemented.includes(protocol) }));
}
