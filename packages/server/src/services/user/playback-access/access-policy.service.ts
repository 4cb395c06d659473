import type {
  LibraryAccess,
  NodeAccess,
  PlaybackPolicyResponse,
  Quota,
  QuotaUsage,
  Quotas,
  RouteKind,
  UsageReportRequest,
  UserUsageResponse,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { errorCode } from '../../../platform/db/errors.js';
import { notFound } from '../../../platform/http/errors.js';
import type { AccessPolicyRepository } from './access-policy.repository.js';
import type { AccountsRepository, UserRow } from '../accounts/accounts.repository.js';
import { assertMayEdit, loadActor, type Actor } from '../accounts/actor.js';
import { auditRecord } from '../audit/audit-entry.js';
import type { NodeDirectory } from './node-directory.js';
import { localDay, periodBounds, quotaLimitBytes } from '../quota/quota-periods.js';
import { assertRoutesExist } from './route-check.js';
import { readWebPlayerEnabled } from '../branding/web-playback.service.js';
import type { SystemSettingsRepository } from '../../shared/system-settings.repository.js';
import type { TrafficUsageRepository } from '../quota/traffic-usage.repository.js';
import type { Port, Transactor, UserRepositories } from '../user-repositories.js';

export interface AccessPolicyServiceDeps {
  accounts: Pick<Port<AccountsRepository>, 'findById'>;
  access: Pick<Port<AccessPolicyRepository>, 'nodeAccess' | 'libraryAccess' | 'quotas'>;
  usage: Pick<Port<TrafficUsageRepository>, 'add' | 'since'>;
  transact: Transactor;
  directory: NodeDirectory;
  clock: Clock;
  /** Where the global web playback switch is kept (system_settings). */
  settings: Pick<Port<SystemSettingsRepository>, 'get'>;
}

/** Counter scope of traffic: the whole account, or one route. */
export function scopeKey(route?: { kind: RouteKind; id: string }): string {
  return route ? `${route.kind}:${route.id}` : 'total';
}

interface ScopedQuota extends Quota {
  scope: 'total' | 'route';
  kind?: RouteKind;
  id?: string;
}

/** The libraries a user sees: administrators every one, whatever is stored; no row means ALL. */
export function effectiveLibraryAccess(
  role: UserRow['role'],
  stored: LibraryAccess | undefined,
): LibraryAccess {
  return role === 'admin' || !stored ? { mode: 'ALL', libraryIds: [] } : stored;
}

/** A user's node access, traffic quotas and their usage; the play-agent's view of them. */
export class AccessPolicyService {
  constructor(private readonly deps: AccessPolicyServiceDeps) {}

  /** Every listed route must exist (400 UNKNOWN_NODE otherwise); mode and list are written together. */
  async setNodeAccess(actor: Actor, userId: string, access: NodeAccess): Promise<NodeAccess> {
    await assertRoutesExist(this.deps.directory, access.entries);
    await this.change(actor, userId, 'user.node-access', access, {
      read: async (repositories) => (await repositories.access.nodeAccess(userId)) ?? null,
      write: (repositories, now) => repositories.access.setNodeAccess(userId, access, now),
    });
    return access;
  }

  /**
   * Mode and list are written together. The ids are not checked against the media service: an id that names
   * no library (any more) matches nothing, and the console lists only libraries that exist.
   */
  async setLibraryAccess(actor: Actor, userId: string, access: LibraryAccess): Promise<LibraryAccess> {
    await this.change(actor, userId, 'user.library-access', access, {
      read: async (repositories) => (await repositories.access.libraryAccess(userId)) ?? null,
      write: (repositories, now) => repositories.access.setLibraryAccess(userId, access, now),
    });
    return access;
  }

  /** Replaces the user's quotas; route quotas must name existing routes. */
  async setQuotas(actor: Actor, userId: string, quotas: Quotas): Promise<Quotas> {
    await assertRoutesExist(this.deps.directory, quotas.routes);
    await this.change(actor, userId, 'user.quotas', quotas, {
      read: (repositories) => repositories.access.quotas(userId),
      write: (repositories) => repositories.access.replaceQuotas(userId, quotas),
    });
    return quotas;
  }

  /** Writes one policy of an editable user and its audit record (before and after) in one transaction. */
  private async change(
    actor: Actor,
    userId: string,
    action: 'user.node-access' | 'user.library-access' | 'user.quotas',
    after: object,
    steps: {
      read: (repositories: UserRepositories) => Promise<unknown>;
      write: (repositories: UserRepositories, now: Date) => Promise<void>;
    },
  ): Promise<void> {
    const target = await this.editable(actor, userId);
    const now = new Date(this.deps.clock.now());
    await this.deps.transact(async (repositories) => {
      const before = await steps.read(repositories);
      await steps.write(repositories, now);
      await repositories.audit.insert(
        auditRecord(
          {
            actor: { userId: actor.identity.userId, username: actor.identity.username },
            action,
            target: { type: 'user', id: userId },
            details: { username: target.username, before, after },
            clientIp: actor.clientIp,
          },
          now,
        ),
      );
    });
  }

  /** Every quota of the user with its use in the current period. */
  async usage(userId: string): Promise<UserUsageResponse> {
    await this.user(userId);
    return { quotas: await this.quotaUsage(userId, await this.deps.access.quotas(userId)) };
  }

  /** What a play-agent needs to admit and meter a user's playback (only enabled quotas are enforced). */
  async playbackPolicy(userId: string): Promise<PlaybackPolicyResponse> {
    const user = await this.user(userId);
    const [nodeAccess, libraryAccess, quotas, webPlayerEnabled] = await Promise.all([
      this.deps.access.nodeAccess(userId),
      this.deps.access.libraryAccess(userId),
      this.deps.access.quotas(userId),
      readWebPlayerEnabled(this.deps.settings),
    ]);
    const enforced = await this.quotaUsage(userId, {
      total: quotas.total?.enabled ? quotas.total : null,
      routes: quotas.routes.filter((route) => route.enabled),
    });
    return {
      disabled: user.disabled,
      // Effective: the user's own switch and the system's web playback switch.
      webPlayback: user.web_playback && webPlayerEnabled,
      driveAPlayMode: user.drive_a_play_mode,
      nodeAccess: nodeAccess ?? { mode: 'ALL', entries: [] },
      libraryAccess: effectiveLibraryAccess(user.role, libraryAccess),
      quotas: enforced.map((quota) => ({
        scope: quota.scope,
        ...(quota.kind ? { kind: quota.kind, id: quota.id } : {}),
        limitBytes: quota.limitBytes,
        usedBytes: quota.usedBytes,
        periodEnd: quota.periodEnd,
        exhausted: quota.exhausted,
      })),
    };
  }

  /**
   * Adds served bytes to the user's counters of today (Asia/Shanghai): the total, and the route the bytes
   * went through (the manual address when the request came through one, else the play-agent node).
   */
  async recordUsage(report: UsageReportRequest): Promise<void> {
    if (report.bytes === 0) return;
    const route = report.endpointId
      ? { kind: 'endpoint' as const, id: report.endpointId }
      : { kind: 'node' as const, id: report.nodeId };
    const day = localDay(this.deps.clock.now());
    try {
      await this.deps.usage.add(report.userId, [scopeKey(), scopeKey(route)], day, report.bytes);
    } catch (error) {
      if (errorCode(error) === '23503') throw notFound('user');
      throw error;
    }
  }

  private async quotaUsage(userId: string, quotas: Quotas): Promise<QuotaUsage[]> {
    const all: ScopedQuota[] = [
      ...(quotas.total ? [{ scope: 'total' as const, ...quotas.total }] : []),
      ...quotas.routes.map((route) => ({ scope: 'route' as const, ...route })),
    ];
    if (all.length === 0) return [];
    const now = this.deps.clock.now();
    const withBounds = all.map((quota) => ({ quota, ...periodBounds(quota.period, now) }));
    const earliest = Math.min(...withBounds.map((entry) => entry.start.getTime()));
    const keys = all.map((quota) =>
      scopeKey(quota.kind && quota.id ? { kind: quota.kind, id: quota.id } : undefined),
    );
    const rows = await this.deps.usage.since(userId, [...new Set(keys)], localDay(earliest));
    return withBounds.map(({ quota, start, end }, index) => {
      const fromDay = localDay(start.getTime());
      const toDay = localDay(end.getTime());
      const usedBytes = rows
        .filter((row) => row.scopeKey === keys[index] && row.day >= fromDay && row.day < toDay)
        .reduce((sum, row) => sum + row.bytes, 0);
      const limitBytes = quotaLimitBytes(quota.amount, quota.unit);
      return {
        scope: quota.scope,
        ...(quota.kind ? { kind: quota.kind, id: quota.id } : {}),
        enabled: quota.enabled,
        amount: quota.amount,
        unit: quota.unit,
        period: quota.period,
        limitBytes,
        usedBytes,
        periodStart: start.toISOString(),
        periodEnd: end.toISOString(),
        exhausted: quota.enabled && usedBytes >= limitBytes,
      };
    });
  }

  private async user(userId: string): Promise<UserRow> {
    const user = await this.deps.accounts.findById(userId);
    if (!user) throw notFound('user');
    return user;
  }

  private async editable(actor: Actor, userId: string): Promise<UserRow> {
    const acting = await loadActor(this.deps.accounts, actor);
    const target = await this.user(userId);
    assertMayEdit(acting, target);
    return target;
  }
}
