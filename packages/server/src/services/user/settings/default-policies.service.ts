import type {
  DefaultLibraryAccessPolicy,
  DefaultNodeAccessPolicy,
  DefaultNodeAccessPolicyResponse,
  DefaultQuotaPolicy,
  NodeAccessPolicyWarning,
} from '@svc/contracts';
import type { AccountsRepository } from '../accounts/accounts.repository.js';
import { loadActor, type Actor } from '../accounts/actor.js';
import type { UserDefaultsService } from './user-defaults.service.js';
import type { Port } from '../user-repositories.js';

/** What the console should tell the administrator about a default node access policy (it is saved anyway). */
export function nodeAccessPolicyWarnings(policy: DefaultNodeAccessPolicy): NodeAccessPolicyWarning[] {
  if (policy.mode === 'ALLOW_LIST' && !policy.entries.some((entry) => entry.kind === 'node')) {
    return [
      {
        code: 'NO_PLAY_AGENT_NODE',
        message:
          'the list names no play-agent node: users created from now on will be unable to play until a node is added to them',
      },
    ];
  }
  if (policy.mode === 'NONE') {
    return [
      {
        code: 'NONE_FOR_NEW_USERS',
        message: 'users created from now on may use no node until each is given access individually',
      },
    ];
  }
  return [];
}

/**
 * The console endpoints of the defaults for new users (system configuration page). The policies are kept by
 * UserDefaultsService: each is one row written in one statement, and an account's creation reads it once in
 * its own transaction, so a concurrent creation sees the old or the new policy, never part of one.
 */
export class DefaultPoliciesService {
  constructor(
    private readonly deps: {
      defaults: Pick<
        UserDefaultsService,
        'get' | 'setQuotaPolicy' | 'setNodeAccessPolicy' | 'setLibraryAccessPolicy'
      >;
      accounts: Pick<Port<AccountsRepository>, 'findById'>;
    },
  ) {}

  async quotaPolicy(): Promise<DefaultQuotaPolicy> {
    return (await this.deps.defaults.get()).quotas;
  }

  async setQuotaPolicy(actor: Actor, policy: DefaultQuotaPolicy): Promise<DefaultQuotaPolicy> {
    await loadActor(this.deps.accounts, actor);
    return this.deps.defaults.setQuotaPolicy(actor, policy);
  }

  async nodeAccessPolicy(): Promise<DefaultNodeAccessPolicyResponse> {
    return withWarnings((await this.deps.defaults.get()).nodeAccess);
  }

  async setNodeAccessPolicy(
    actor: Actor,
    policy: DefaultNodeAccessPolicy,
  ): Promise<DefaultNodeAccessPolicyResponse> {
    await loadActor(this.deps.accounts, actor);
    return withWarnings(await this.deps.defaults.setNodeAccessPolicy(actor, policy));
  }

  async libraryAccessPolicy(): Promise<DefaultLibraryAccessPolicy> {
    return (await this.deps.defaults.get()).libraryAccess;
  }

  async setLibraryAccessPolicy(
    actor: Actor,
    policy: DefaultLibraryAccessPolicy,
  ): Promise<DefaultLibraryAccessPolicy> {
    await loadActor(this.deps.accounts, actor);
    return this.deps.defaults.setLibraryAccessPolicy(actor, policy);
  }
}

function withWarnings(policy: DefaultNodeAccessPolicy): DefaultNodeAccessPolicyResponse {
  return { mode: policy.mode, entries: policy.entries, warnings: nodeAccessPolicyWarnings(policy) };
}
