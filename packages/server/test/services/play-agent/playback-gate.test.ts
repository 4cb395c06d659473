import type { PlaybackPolicyResponse, ResolveEndpointResponse } from '@svc/contracts';
import { describe, expect, it, vi } from 'vitest';
import { PlaybackGate } from '../../../src/services/play-agent/access/playback-gate.js';
import type { Player } from '../../../src/services/play-agent/access/token-resolver.js';

const USER = '11111111-1111-4111-8111-111111111111';
const NODE = 'node-1';

const player: Player = {
  userId: USER,
  username: 'alice',
  isAdmin: false,
  tokenKind: 'playback',
  tokenId: 'tok-id-1',
  token: 'svc_ply_abc',
};

type Quota = PlaybackPolicyResponse['quotas'][number];
type Access = PlaybackPolicyResponse['nodeAccess'];

function policy(
  overrides: { disabled?: boolean; webPlayback?: boolean; nodeAccess?: Access; quotas?: Quota[] } = {},
) {
  return {
    disabled: false,
    webPlayback: true,
    driveAPlayMode: 'proxy',
    nodeAccess: { mode: 'ALL', entries: [] },
    libraryAccess: { mode: 'ALL', libraryIds: [] },
    quotas: [],
    ...overrides,
  } satisfies PlaybackPolicyResponse as PlaybackPolicyResponse;
}

function quota(overrides: Partial<Quota>): Quota {
  return {
    scope: 'total',
    limitBytes: 1_000,
    usedBytes: 0,
    periodEnd: '2030-01-01T00:00:00.000Z',
    exhausted: false,
    ...overrides,
  };
}

const allowList = (...entries: Access['entries']): Access => ({ mode: 'ALLOW_LIST', entries });

/**
 * A gate over fakes. The meter answers the total (no endpoint argument) and each route (null = this node)
 * from separate tables, so a gate that asks for the wrong one gets the wrong number.
 */
function harness(initial: PlaybackPolicyResponse = policy()) {
  let current = initial;
  const playbackPolicy = vi.fn(async (_userId: string) => current);
  const resolveEndpoint = vi.fn(async (_token: string): Promise<ResolveEndpointResponse> => ({
    found: false,
  }));
  const unrecorded = { total: 0, routes: new Map<string | null, number>() };
  const meter = {
    unrecorded: vi.fn((_userId: string, endpointId?: string | null) =>
      endpointId === undefined ? unrecorded.total : (unrecorded.routes.get(endpointId) ?? 0),
    ),
  };
  const gate = new PlaybackGate({
    users: { playbackPolicy },
    config: { resolveEndpoint },
    meter,
    nodeId: NODE,
  });
  return {
    gate,
    playbackPolicy,
    resolveEndpoint,
    meter,
    unrecorded,
    setPolicy(next: PlaybackPolicyResponse) {
      current = next;
    },
  };
}

const refused = (status: number, code: string) => ({ statusCode: status, code });

describe('PlaybackGate.admit: account and node access', () => {
  it('a disabled account is refused with 401 ACCOUNT_DISABLED', async () => {
    const { gate } = harness(policy({ disabled: true }));
    await expect(gate.admit(player, null, { bytes: false })).rejects.toMatchObject(
      refused(401, 'ACCOUNT_DISABLED'),
    );
  });

  it('mode ALL allows this node and any address', async () => {
    const { gate } = harness(policy({ nodeAccess: { mode: 'ALL', entries: [] } }));
    await expect(gate.admit(player, null, { bytes: true })).resolves.toBeDefined();
    await expect(gate.admit(player, 'ep-1', { bytes: true })).resolves.toBeDefined();
  });

  it('ALLOW_LIST must name this node as a node', async () => {
    const named = harness(policy({ nodeAccess: allowList({ kind: 'node', id: NODE }) }));
    await expect(named.gate.admit(player, null, { bytes: true })).resolves.toBeDefined();

    const other = harness(policy({ nodeAccess: allowList({ kind: 'node', id: 'node-2' }) }));
    await expect(other.gate.admit(player, null, { bytes: true })).rejects.toMatchObject(
      refused(403, 'NODE_NOT_ALLOWED'),
    );

    const wrongKind = harness(policy({ nodeAccess: allowList({ kind: 'endpoint', id: NODE }) }));
    await expect(wrongKind.gate.admit(player, null, { bytes: false })).rejects.toMatchObject(
      refused(403, 'NODE_NOT_ALLOWED'),
    );

    const empty = harness(policy({ nodeAccess: allowList() }));
    await expect(empty.gate.admit(player, null, { bytes: false })).rejects.toMatchObject(
      refused(403, 'NODE_NOT_ALLOWED'),
    );
  });

  it('NONE refuses, even when the list names the node', async () => {
    const { gate } = harness(policy({ nodeAccess: { mode: 'NONE', entries: [{ kind: 'node', id: NODE }] } }));
    await expect(gate.admit(player, null, { bytes: false })).rejects.toMatchObject(
      refused(403, 'NODE_NOT_ALLOWED'),
    );
  });

  it('through an address, the list must also name that address (403 ENDPOINT_NOT_ALLOWED)', async () => {
    const nodeOnly = harness(policy({ nodeAccess: allowList({ kind: 'node', id: NODE }) }));
    await expect(nodeOnly.gate.admit(player, 'ep-1', { bytes: false })).rejects.toMatchObject(
      refused(403, 'ENDPOINT_NOT_ALLOWED'),
    );

    const both = harness(
      policy({ nodeAccess: allowList({ kind: 'node', id: NODE }, { kind: 'endpoint', id: 'ep-1' }) }),
    );
    await expect(both.gate.admit(player, 'ep-1', { bytes: true })).resolves.toBeDefined();
    await expect(both.gate.admit(player, 'ep-2', { bytes: true })).rejects.toMatchObject(
      refused(403, 'ENDPOINT_NOT_ALLOWED'),
    );
    // The address as a node id does not count.
    const nodeKind = harness(
      policy({ nodeAccess: allowList({ kind: 'node', id: NODE }, { kind: 'node', id: 'ep-1' }) }),
    );
    await expect(nodeKind.gate.admit(player, 'ep-1', { bytes: false })).rejects.toMatchObject(
      refused(403, 'ENDPOINT_NOT_ALLOWED'),
    );
  });

  it('the endpoint token only tightens: an allowed address does not replace node access', async () => {
    const { gate } = harness(policy({ nodeAccess: allowList({ kind: 'endpoint', id: 'ep-1' }) }));
    await expect(gate.admit(player, 'ep-1', { bytes: false })).rejects.toMatchObject(
      refused(403, 'NODE_NOT_ALLOWED'),
    );
  });
});

describe('PlaybackGate.admit: web playback', () => {
  it('refuses a portal access token while web playback is off for the account, and admits a player token', async () => {
    const h = harness(policy({ webPlayback: false }));
    await expect(
      h.gate.admit({ ...player, tokenKind: 'access' }, null, { bytes: true }),
    ).rejects.toMatchObject(refused(403, 'WEB_PLAYBACK_DISABLED'));
    await expect(h.gate.admit(player, null, { bytes: true })).resolves.toBeDefined();
  });

  it('admits a portal access token while web playback is on', async () => {
    const h = harness(policy({ webPlayback: true }));
    await expect(
      h.gate.admit({ ...player, tokenKind: 'access' }, null, { bytes: true }),
    ).resolves.toBeDefined();
  });
});

describe('PlaybackGate.admit: quotas', () => {
  it('total quota: recorded use plus unrecorded bytes reaching the limit refuses with QUOTA_EXHAUSTED', async () => {
    const h = harness(policy({ quotas: [quota({ scope: 'total', limitBytes: 1_000, usedBytes: 900 })] }));
    h.unrecorded.total = 99;
    await expect(h.gate.admit(player, null, { bytes: true })).resolves.toBeDefined();
    expect(h.meter.unrecorded).toHaveBeenCalledWith(USER);

    h.unrecorded.total = 100;
    await expect(h.gate.admit(player, null, { bytes: true })).rejects.toMatchObject(
      refused(403, 'QUOTA_EXHAUSTED'),
    );
    // The total applies whichever route the request took.
    await expect(h.gate.admit(player, 'ep-1', { bytes: true })).rejects.toMatchObject(
      refused(403, 'QUOTA_EXHAUSTED'),
    );
  });

  it('a quota the user service marks exhausted refuses even with room left', async () => {
    const { gate } = harness(policy({ quotas: [quota({ usedBytes: 0, exhausted: true })] }));
    await expect(gate.admit(player, null, { bytes: true })).rejects.toMatchObject(
      refused(403, 'QUOTA_EXHAUSTED'),
    );
  });

  it('{ bytes: false } skips quotas but not access', async () => {
    const { gate } = harness(policy({ quotas: [quota({ usedBytes: 5_000, exhausted: true })] }));
    await expect(gate.admit(player, null, { bytes: false })).resolves.toBeDefined();

    const locked = harness(
      policy({ nodeAccess: { mode: 'NONE', entries: [] }, quotas: [quota({ exhausted: true })] }),
    );
    await expect(locked.gate.admit(player, null, { bytes: false })).rejects.toMatchObject(
      refused(403, 'NODE_NOT_ALLOWED'),
    );
  });

  it('the node route quota applies to direct requests only', async () => {
    const { gate } = harness(
      policy({ quotas: [quota({ scope: 'route', kind: 'node', id: NODE, usedBytes: 1_000 })] }),
    );
    await expect(gate.admit(player, null, { bytes: true })).rejects.toMatchObject(
      refused(403, 'QUOTA_EXHAUSTED'),
    );
    await expect(gate.admit(player, 'ep-1', { bytes: true })).resolves.toBeDefined();
  });

  it('an address quota applies to requests through that address only', async () => {
    const { gate } = harness(
      policy({ quotas: [quota({ scope: 'route', kind: 'endpoint', id: 'ep-1', usedBytes: 1_000 })] }),
    );
    await expect(gate.admit(player, 'ep-1', { bytes: true })).rejects.toMatchObject(
      refused(403, 'QUOTA_EXHAUSTED'),
    );
    await expect(gate.admit(player, null, { bytes: true })).resolves.toBeDefined();
    await expect(gate.admit(player, 'ep-2', { bytes: true })).resolves.toBeDefined();
  });

  it('route quotas of other nodes, and ids that only match with the other kind, are ignored', async () => {
    const { gate } = harness(
      policy({
        quotas: [
          quota({ scope: 'route', kind: 'node', id: 'node-2', exhausted: true, usedBytes: 1_000 }),
          quota({ scope: 'route', kind: 'endpoint', id: NODE, exhausted: true, usedBytes: 1_000 }),
          quota({ scope: 'route', kind: 'node', id: 'ep-1', exhausted: true, usedBytes: 1_000 }),
        ],
      }),
    );
    await expect(gate.admit(player, null, { bytes: true })).resolves.toBeDefined();
    await expect(gate.admit(player, 'ep-1', { bytes: true })).resolves.toBeDefined();
  });

  it('a route quota counts the unrecorded bytes of that route only', async () => {
    const h = harness(
      policy({
        quotas: [
          quota({ scope: 'route', kind: 'node', id: NODE, limitBytes: 1_000, usedBytes: 500 }),
          quota({ scope: 'route', kind: 'endpoint', id: 'ep-1', limitBytes: 1_000, usedBytes: 500 }),
        ],
      }),
    );
    h.unrecorded.routes.set('ep-1', 600); // served through the address, not yet recorded
    h.unrecorded.routes.set(null, 100);
    await expect(h.gate.admit(player, null, { bytes: true })).resolves.toBeDefined();
    await expect(h.gate.admit(player, 'ep-1', { bytes: true })).rejects.toMatchObject(
      refused(403, 'QUOTA_EXHAUSTED'),
    );

    h.unrecorded.routes.set(null, 500);
    await expect(h.gate.admit(player, null, { bytes: true })).rejects.toMatchObject(
      refused(403, 'QUOTA_EXHAUSTED'),
    );
    expect(h.meter.unrecorded).toHaveBeenCalledWith(USER, null);
    expect(h.meter.unrecorded).toHaveBeenCalledWith(USER, 'ep-1');
  });

  it('answers the policy it admitted on', async () => {
    const answer = policy({ quotas: [quota({ usedBytes: 1 })] });
    const { gate } = harness(answer);
    await expect(gate.admit(player, null, { bytes: true })).resolves.toEqual(answer);
  });
});

describe('PlaybackGate: policy cache', () => {
  it('two admits ask the user service once', async () => {
    const h = harness();
    await h.gate.admit(player, null, { bytes: true });
    await h.gate.admit(player, null, { bytes: false });
    expect(h.playbackPolicy).toHaveBeenCalledTimes(1);
    expect(h.playbackPolicy).toHaveBeenCalledWith(USER);
  });

  it('a cached answer is used until forget(userId), then the user service is asked again', async () => {
    const h = harness(policy());
    await h.gate.admit(player, null, { bytes: true });
    h.setPolicy(policy({ nodeAccess: { mode: 'NONE', entries: [] } }));
    await expect(h.gate.admit(player, null, { bytes: true })).resolves.toBeDefined();

    h.gate.forget(USER);
    await expect(h.gate.admit(player, null, { bytes: true })).rejects.toMatchObject(
      refused(403, 'NODE_NOT_ALLOWED'),
    );
    expect(h.playbackPolicy).toHaveBeenCalledTimes(2);
  });

  it('forget() of another user keeps this user’s cached answer', async () => {
    const h = harness();
    await h.gate.policy(USER);
    h.gate.forget('22222222-2222-4222-8222-222222222222');
    await h.gate.policy(USER);
    expect(h.playbackPolicy).toHaveBeenCalledTimes(1);
  });

  it('an answer fetched while the user’s bytes were being recorded is not kept: the gate asks again', async () => {
    const withUse = (usedBytes: number) =>
      policy({
        quotas: [quota({ scope: 'total', limitBytes: 1000, usedBytes })],
      });
    const h = harness(withUse(0));
    let release: () => void = () => undefined;
    h.playbackPolicy.mockImplementationOnce(
      () => new Promise((resolve) => (release = () => resolve(withUse(0)))),
    );
    const first = h.gate.policy(USER);
    // The meter records 1000 bytes (no longer pending) while the old answer is still on its way.
    h.setPolicy(withUse(1000));
    h.gate.forget(USER);
    release();
    expect((await first).quotas[0]).toMatchObject({ usedBytes: 1000 });
    await expect(h.gate.admit(player, null, { bytes: true })).rejects.toMatchObject(
      refused(403, 'QUOTA_EXHAUSTED'),
    );
  });

  it('a failing policy call refuses (the error passes through) and is not cached', async () => {
    const h = harness();
    h.playbackPolicy.mockRejectedValueOnce(Object.assign(new Error('down'), { statusCode: 503 }));
    await expect(h.gate.admit(player, null, { bytes: true })).rejects.toThrow('down');
    await expect(h.gate.admit(player, null, { bytes: true })).resolves.toBeDefined();
    expect(h.playbackPolicy).toHaveBeenCalledTimes(2);
  });
});

describe('PlaybackGate.endpointOf', () => {
  it('no token means a direct request, without asking the config service', async () => {
    const h = harness();
    await expect(h.gate.endpointOf(undefined)).resolves.toBeNull();
    await expect(h.gate.endpointOf('')).resolves.toBeNull();
    await expect(h.gate.endpointOf('x'.repeat(257))).resolves.toBeNull();
    expect(h.resolveEndpoint).not.toHaveBeenCalled();
  });

  it('unknown or disabled addresses mean a direct request; a found one answers its id', async () => {
    const h = harness();
    h.resolveEndpoint.mockImplementation(async (token) => {
      if (token === 'good') return { found: true, nodeId: 'ep-1', disabled: false };
      if (token === 'off') return { found: true, nodeId: 'ep-2', disabled: true };
      return { found: false };
    });
    await expect(h.gate.endpointOf('good')).resolves.toBe('ep-1');
    await expect(h.gate.endpointOf('off')).resolves.toBeNull();
    await expect(h.gate.endpointOf('unknown')).resolves.toBeNull();
    expect(h.resolveEndpoint).toHaveBeenCalledWith('good');
  });

  it('is asked on every request: a regenerated token stops at once', async () => {
    const h = harness();
    h.resolveEndpoint.mockResolvedValueOnce({ found: true, nodeId: 'ep-1', disabled: false });
    await expect(h.gate.endpointOf('tok')).resolves.toBe('ep-1');
    h.resolveEndpoint.mockResolvedValueOnce({ found: false });
    await expect(h.gate.endpointOf('tok')).resolves.toBeNull();
    expect(h.resolveEndpoint).toHaveBeenCalledTimes(2);
  });

  it('concurrent identical lookups share one call; different tokens do not', async () => {
    const h = harness();
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    h.resolveEndpoint.mockImplementation(async (token) => {
      await answered;
      return { found: true, nodeId: `ep-${token}`, disabled: false };
    });
    const lookups = [h.gate.endpointOf('a'), h.gate.endpointOf('a'), h.gate.endpointOf('b')];
    release();
    await expect(Promise.all(lookups)).resolves.toEqual(['ep-a', 'ep-a', 'ep-b']);
    expect(h.resolveEndpoint).toHaveBeenCalledTimes(2);

    await h.gate.endpointOf('a');
    expect(h.resolveEndpoint).toHaveBeenCalledTimes(3);
  });

  it('when the config service fails the lookup fails (it never loosens), and the next one asks again', async () => {
    const h = harness();
    h.resolveEndpoint.mockRejectedValueOnce(new Error('config down'));
    await expect(h.gate.endpointOf('tok')).rejects.toThrow('config down');
    h.resolveEndpoint.mockResolvedValueOnce({ found: true, nodeId: 'ep-1', disabled: false });
    await expect(h.gate.endpointOf('tok')).resolves.toBe('ep-1');
  });
});
