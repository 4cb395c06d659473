import {
  DEFAULT_PLAY_AGENT_POLICY,
  IMPLEMENTED_CLIENT_PROTOCOLS,
  playAgentPolicySchema,
  type PlayAgentPolicy,
  type UpdatePlayAgentPolicyRequest,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError } from '../../../platform/http/errors.js';
import type { SystemSettingsRepository } from '../../shared/system-settings.repository.js';

/** system_settings key of the play-agent policy (a whole PlayAgentPolicy object). */
export const PLAY_AGENT_POLICY_KEY = 'play-agent.policy';

/**
 * The policy every play-agent fetches (task policy.refresh): selected client protocol, response cache,
 * metadata cache lifetime and the global DRIVE_A redirect switch.
 */
export class PlayAgentPolicyService {
  constructor(
    private readonly settings: Pick<SystemSettingsRepository, 'get' | 'set'>,
    private readonly clock: Clock,
  ) {}

  /** The stored policy; fields never saved (or unreadable) take their defaults. */
  async get(): Promise<PlayAgentPolicy> {
    const stored = await this.settings.get(PLAY_AGENT_POLICY_KEY);
    const value = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
    const policy = { ...DEFAULT_PLAY_AGENT_POLICY };
    for (const key of Object.keys(policy) as (keyof PlayAgentPolicy)[]) {
      const field = playAgentPolicySchema.shape[key].safeParse(value[key]);
      if (field.success) (policy as Record<string, unknown>)[key] = field.data;
    }
    return policy;
  }

  /** Changes the named fields. PROTO_B and PROTO_C are announced only: selecting one answers 400. */
  async update(change: UpdatePlayAgentPolicyRequest): Promise<PlayAgentPolicy> {
    if (
      change.protocol !== undefined &&
      !(IMPLEMENTED_CLIENT_PROTOCOLS as readonly string[]).includes(change.protocol)
    ) {
      throw new AppError(
        400,
        'PROTOCOL_NOT_AVAILABLE',
        `protocol ${change.protocol} is announced only and cannot be selected`,
        { protocol: change.protocol, available: IMPLEMENTED_CLIENT_PROTOCOLS },
      );
    }
    const next: PlayAgentPolicy = { ...(await this.get()), ...definedFields(change) };
    await this.settings.set(PLAY_AGENT_POLICY_KEY, next, new Date(this.clock.now()));
    return next;
  }
}

function definedFields(change: UpdatePlayAgentPolicyRequest): Partial<PlayAgentPolicy> {
  const fields: Partial<PlayAgentPolicy> = {};
  if (change.protocol !== undefined) fields.protocol = change.protocol;
  if (change.responseCache !== undefined) fields.responseCache = change.responseCache;
  if (change.metadataCacheTtlSeconds !== undefined) {
    fields.metadataCacheTtlSeconds = change.metadataCacheTtlSeconds;
  }
  if (change.driveARedirect !== undefined) fields.driveARedirect = change.driveARedirect;
  return fields;
}
