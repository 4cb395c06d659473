import {
  defaultLibraryAccessPolicySchema,
  defaultNodeAccessPolicySchema,
  defaultQuotaPolicySchema,
  type DefaultLibraryAccessPolicy,
  type DefaultNodeAccessPolicy,
  type DefaultQuotaPolicy,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { Actor } from '../accounts/actor.js';
import { auditChanges } from '../../../platform/audit/audit-details.js';
import { auditRecord } from '../audit/audit-entry.js';
import type { NodeDirectory } from '../playback-access/node-directory.js';
import { assertRoutesExist } from '../playback-access/route-check.js';
import type { SystemSettingsRepository } from '../../shared/system-settings.repository.js';
import type { Port, Transactor } from '../user-repositories.js';

export const DEFAULT_QUOTA_POLICY_KEY = 'traffic-quota.default-policy';
export const DEFAULT_NODE_ACCESS_POLICY_KEY = 'node-access.default-policy';
export const DEFAULT_LIBRARY_ACCESS_POLICY_KEY = 'library-access.default-policy';

/** What a new user gets a copy of. */
export interface UserDefaults {
  quotas: DefaultQuotaPolicy;
  nodeAccess: DefaultNodeAccessPolicy;
  libraryAccess: DefaultLibraryAccessPolicy;
}

const NO_QUOTA: DefaultQuotaPolicy = { total: null, routes: [] };
const ALL_NODES: DefaultNodeAccessPolicy = { mode: 'ALL', entries: [] };
const ALL_LIBRARIES: DefaultLibraryAccessPolicy = { mode: 'ALL', libraryIds: [] };

/** The defaults in force (absent or unreadable: no quota, mode ALL for nodes and libraries). */
export async function readUserDefaults(
  settings: Pick<Port<SystemSettingsRepository>, 'get'>,
): Promise<UserDefaults> {
  const quotas = defaultQuotaPolicySchema.safeParse(await settings.get(DEFAULT_QUOTA_POLICY_KEY));
  const nodeAccess = defaultNodeAccessPolicySchema.safeParse(
    await settings.get(DEFAULT_NODE_ACCESS_POLICY_KEY),
  );
  const libraryAccess = defaultLibraryAccessPolicySchema.safeParse(
    await settings.get(DEFAULT_LIBRARY_ACCESS_POLICY_KEY),
  );
  return {
    quotas: quotas.success ? quotas.data : structuredClone(NO_QUOTA),
    nodeAccess: nodeAccess.success ? nodeAccess.data : structuredClone(ALL_NODES),
    libraryAccess: libraryAccess.success ? libraryAccess.data : structuredClone(ALL_LIBRARIES),
  };
}

/**
 * The default quota, node access and library access policies for users created afterwards. A new user gets a copy of the
 * defaults in force at its creation; changing a default never touches existing users.
 */
export class UserDefaultsService {
  constructor(
    private readonly settings: Pick<Port<SystemSettingsRepository>, 'get'>,
    private readonly transact: Transactor,
    private readonly directory: NodeDirectory,
    private readonly clock: Clock,
  ) {}

  async get(): Promise<UserDefaults> {
    return readUserDefaults(this.settings);
  }

  async setQuotaPolicy(actor: Actor | null, input: DefaultQuotaPolicy): Promise<DefaultQuotaPolicy> {
    const policy = defaultQuotaPolicySchema.parse(input);
    await assertRoutesExist(this.directory, policy.routes);
    await this.save(actor, DEFAULT_QUOTA_POLICY_KEY, 'settings.default-quota-policy', policy);
    return policy;
  }

  async setNodeAccessPolicy(
    actor: Actor | null,
    input: DefaultNodeAccessPolicy,
  ): Promise<DefaultNodeAccessPolicy> {
    const policy = defaultNodeAccessPolicySchema.parse(input);
    await assertRoutesExist(this.directory, policy.entries);
    await this.save(actor, DEFAULT_NODE_ACCESS_POLICY_KEY, 'settings.default-node-access-policy', policy);
    return policy;
  }

  /** Library ids are not checked: an id of no (longer existing) library matches nothing. */
  async setLibraryAccessPolicy(
    actor: Actor | null,
    input: DefaultLibraryAccessPolicy,
  ): Promise<DefaultLibraryAccessPolicy> {
    const policy = defaultLibraryAccessPolicySchema.parse(input);
    await this.save(
      actor,
      DEFAULT_LIBRARY_ACCESS_POLICY_KEY,
      'settings.default-library-access-policy',
      policy,
    );
    return policy;
  }

  private async save(
    actor: Actor | null,
    key: string,
    action:
      | 'settings.default-quota-policy'
      | 'settings.default-node-access-policy'
      | 'settings.default-library-access-policy',
    value: object,
  ): Promise<void> {
    const now = new Date(this.clock.now());
    await this.transact(async (repositories) => {
      const defaults = await readUserDefaults(repositories.settings);
      const before =
        key === DEFAULT_QUOTA_POLICY_KEY
          ? defaults.quotas
          : key === DEFAULT_LIBRARY_ACCESS_POLICY_KEY
            ? defaults.libraryAccess
            : defaults.nodeAccess;
      await repositories.settings.set(key, value, now);
      await repositories.audit.insert(
        auditRecord(
          {
            actor: actor && { userId: actor.identity.userId, username: actor.identity.username },
            action,
            target: { type: 'setting', id: key },
            details: auditChanges(before, value),
            clientIp: actor?.clientIp ?? null,
          },
          now,
        ),
      );
    });
  }
}
