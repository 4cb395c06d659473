import { LRUCache } from 'lru-cache';
import type { PlaybackPolicyResponse } from '@svc/contracts';
import { AppError } from '../../../platform/http/errors.js';
import type { UsageMeter } from '../reporting/usage-meter.js';
import type { ConfigClient } from '../upstream/config-client.js';
import type { UserClient } from '../upstream/user-client.js';
import type { Player } from './token-resolver.js';

/** How long a user's playback policy (access, quotas and their use) is reused. */
export const POLICY_CACHE_MS = 5_000;

export const quotaExhausted = (scope: string) =>
  new AppError(403, 'QUOTA_EXHAUSTED', `the traffic quota (${scope}) is used up for this period`);
const nodeNotAllowed = () =>
  new AppError(403, 'NODE_NOT_ALLOWED', 'this account may not play through this node');
const endpointNotAllowed = () =>
  new AppError(403, 'ENDPOINT_NOT_ALLOWED', 'this account may not play through this address');

/**
 * Decides whether a player may use this node: node-level access always applies; a request that came
 * through a manual reverse-proxy address (X-SVC-Endpoint-Token) must also be allowed that address, and is
 * charged to it. Quotas already used up refuse the request before any byte or link is issued.
 */
export class PlaybackGate {
  private readonly policies = new LRUCache<string, PlaybackPolicyResponse>({
    max: 10_000,
    ttl: POLICY_CACHE_MS,
  });
  private readonly resolving = new Map<string, Promise<string | null>>();
  private readonly generations = new LRUCache<string, number>({ max: 10_000 });

  constructor(
    private readonly deps: {
      users: Pick<UserClient, 'playbackPolicy'>;
      config: Pick<ConfigClient, 'resolveEndpoint'>;
      meter: Pick<UsageMeter, 'unrecorded'>;
      nodeId: string;
    },
  ) {}

  /**
   * The manual address an endpoint token names; unknown, disabled or regenerated tokens mean a direct
   * request. Asked on every request (concurrent identical ones share one call), so a regenerated token
   * stops counting at once; when the config service cannot answer, the request fails rather than loosen.
   */
  async endpointOf(token: string | undefined): Promise<string | null> {
    if (!token || token.length > 256) return null;
    const running = this.resolving.get(token);
    if (running) return running;
    const lookup = this.deps.config
      .resolveEndpoint(token)
      .then((answer) => (answer.found && !answer.disabled ? answer.nodeId : null))
      .finally(() => this.resolving.delete(token));
    this.resolving.set(token, lookup);
    return lookup;
  }

  /**
   * The user's policy, cached. An answer whose fetch overlapped a recording of the user's bytes may
   * predate it while the meter no longer counts those bytes as pending, so it is fetched again.
   */
  async policy(userId: string): Promise<PlaybackPolicyResponse> {
    let policy: PlaybackPolicyResponse | undefined;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const cached = this.policies.get(userId);
      if (cached) return cached;
      const generation = this.generations.get(userId) ?? 0;
      policy = await this.deps.users.playbackPolicy(userId);
      if ((this.generations.get(userId) ?? 0) === generation) {
        this.policies.set(userId, policy);
        return policy;
      }
    }
    return policy!;
  }

  /** The user's recorded use changed: the next check asks again, and answers in flight are not kept. */
  forget(userId: string): void {
    this.policies.delete(userId);
    this.generations.set(userId, (this.generations.get(userId) ?? 0) + 1);
  }

  /** Throws 401/403 unless the player may use this node (and address); with `bytes`, quotas must have room. */
  async admit(
    player: Player,
    endpointId: string | null,
    options: { bytes: boolean },
  ): Promise<PlaybackPolicyResponse> {
    const policy = await this.policy(player.userId);
    if (policy.disabled) throw new AppError(401, 'ACCOUNT_DISABLED', 'this account is disabled');
    if (player.tokenKind === 'access' && !policy.webPlayback) {
      throw new AppError(403, 'WEB_PLAYBACK_DISABLED', 'web playback is switched off for this account');
    }
    const { mode, entries } = policy.nodeAccess;
    const allowed = (kind: 'node' | 'endpoint', id: string) =>
      mode === 'ALL' ||
      (mode === 'ALLOW_LIST' && entries.some((entry) => entry.kind === kind && entry.id === id));
    if (!allowed('node', this.deps.nodeId)) throw nodeNotAllowed();
    if (endpointId && !allowed('endpoint', endpointId)) throw endpointNotAllowed();
    if (options.bytes) {
      for (const quota of policy.quotas) {
        if (quota.scope === 'total') {
          const used = quota.usedBytes + this.deps.meter.unrecorded(player.userId);
          if (quota.exhausted || used >= quota.limitBytes) throw quotaExhausted('total');
          continue;
        }
        const route = endpointId
          ? { kind: 'endpoint', id: endpointId }
          : { kind: 'node', id: this.deps.nodeId };
        if (quota.kind !== route.kind || quota.id !== route.id) continue;
        const used = quota.usedBytes + this.deps.meter.unrecorded(player.userId, endpointId);
        if (quota.exhausted || used >= quota.limitBytes) throw quotaExhausted(`${route.kind} ${route.id}`);
      }
    }
    return policy;
  }
}
