import { describe, expect, it } from 'vitest';
import { DEFAULT_PLAY_AGENT_POLICY } from '@svc/contracts';
import {
  nodeAccessAdvice,
  playAgentPolicyValuesFrom,
  protocolChoices,
  toPlayAgentPolicyBody,
} from './policy-forms.js';

describe('default node access advice', () => {
  it('warns about a list without a play-agent node and about NONE', () => {
    expect(nodeAccessAdvice({ mode: 'ALL', nodes: [], endpoints: [] })).toEqual([]);
    expect(nodeAccessAdvice({ mode: 'ALLOW_LIST', nodes: [], endpoints: ['node-manual-1'] })).toEqual([
      'NO_PLAY_AGENT_NODE',
    ]);
    expect(nodeAccessAdvice({ mode: 'ALLOW_LIST', nodes: ['  '], endpoints: [] })).toEqual([
      'NO_PLAY_AGENT_NODE',
    ]);
    expect(nodeAccessAdvice({ mode: 'ALLOW_LIST', nodes: ['node-pa-1'], endpoints: [] })).toEqual([]);
    expect(nodeAccessAdvice({ mode: 'NONE', nodes: [], endpoints: [] })).toEqual(['NONE_FOR_NEW_USERS']);
  });
});

describe('play-agent policy form', () => {
  it('edits protocol, cache and redirect, and leaves the TTL alone', () => {
    const values = playAgentPolicyValuesFrom({ ...DEFAULT_PLAY_AGENT_POLICY, responseCache: true });
    expect(values).toEqual({ protocol: 'proto_a', responseCache: true, driveARedirect: false });
    expect(toPlayAgentPolicyBody({ ...values, driveARedirect: true })).toEqual({
      protocol: 'proto_a',
      responseCache: true,
      driveARedirect: true,
    });
    expect(toPlayAgentPolicyBody(values)).not.toHaveProperty('metadataCacheTtlSeconds');
  });

  it('offers only proto_a; PROTO_B and PROTO_C are shown as not available', () => {
    expect(protocolChoices()).toEqual([
      { protocol: 'proto_a', available: true },
      { protocol: 'PROTO_B', available: false },
      { protocol: 'PROTO_C', available: false },
    ]);
  });
});
