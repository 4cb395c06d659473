import type {
  AuditAction,
  CreateUserRequest,
  DelegablePermission,
  ListUsersQuery,
  ListUsersResponse,
  ManagedUser,
  UpdateUserRequest,
  UserDetail,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError, forbidden, notFound } from '../../../platform/http/errors.js';
import type { AccessPolicyRepository } from '../playback-access/access-policy.repository.js';
import type { AccountsRepository, UserChanges, UserRow } from './accounts.repository.js';
import { assertMayEdit, assertMayGrant, loadActor, type Actor } from './actor.js';
import { createAccount } from './account-creator.js';
import { auditRecord, type AuditInput } from '../audit/audit-entry.js';
import type { PasswordHasher } from '../auth/password-hasher.js';
import type { RevocationNotifier } from '../tokens/revocations.js';
import { toManagedUser } from './user-mappers.js';
import type { Port, Transactor, UserRepositories } from '../user-repositories.js';

export interface UsersServiceDeps {
  accounts: Pick<Port<AccountsRepository>, 'findById' | 'list'>;
  access: Pick<Port<AccessPolicyRepository>, 'nodeAccess' | 'libraryAccess' | 'quotas'>;
  transact: Transactor;
  hasher: Pick<PasswordHasher, 'hash'>;
  revocations: Pick<RevocationNotifier, 'user'>;
  clock: Clock;
}

const lastAdmin = () =>
  new AppError(409, 'LAST_ADMIN', 'the last enabled administrator cannot be deleted or disabled');
const selfAction = (what: string) => new AppError(409, 'SELF_ACTION', `you cannot ${what} your own account`);

/** User management in the console (menu permission `user`). */
export class UsersService {
  constructor(private readonly deps: UsersServiceDeps) {}

  async list(query: ListUsersQuery): Promise<ListUsersResponse> {
    const { rows, total } = await this.deps.accounts.list({
      offset: (query.page - 1) * query.pageSize,
      limit: query.pageSize,
      search: query.search || undefined,
    });
    return { items: rows.map(toManagedUser), total, page: query.page, pageSize: query.pageSize };
  }

  async get(id: string): Promise<UserDetail> {
    const user = await this.target(id);
    const [nodeAccess, libraryAccess, quotas] = await Promise.all([
      this.deps.access.nodeAccess(id),
      this.deps.access.libraryAccess(id),
      this.deps.access.quotas(id),
    ]);
    return {
      ...toManagedUser(user),
      nodeAccess: nodeAccess ?? { mode: 'ALL', entries: [] },
      libraryAccess: libraryAccess ?? { mode: 'ALL', libraryIds: [] },
      quotas,
    };
  }

  /** Node access and quotas are copied from the defaults in force now. */
  async create(actor: Actor, request: CreateUserRequest): Promise<ManagedUser> {
    const acting = await loadActor(this.deps.accounts, actor);
    const role = request.role ?? 'user';
    if (role === 'admin' && acting.role !== 'admin')
      throw forbidden('only administrators can create administrators');
    const permissions = unique(request.permissions ?? []);
    assertMayGrant(acting, permissions);
    const passwordHash = await this.deps.hasher.hash(request.password);
    const now = this.now();
    const row = await this.deps.transact(async (repositories) => {
      const { password: _password, ...fields } = request;
      const created = await createAccount(repositories, { ...fields, role, permissions, passwordHash }, now);
      await this.audit(repositories, actor, now, {
        action: 'user.create',
        target: created,
        details: {
          username: created.username,
          role,
          permissions,
          webPlayback: created.web_playback,
          driveAPlayMode: created.drive_a_play_mode,
        },
      });
      return created;
    });
    return toManagedUser(row);
  }

  /** A new password or disabling revokes every token of the user. */
  async update(actor: Actor, id: string, request: UpdateUserRequest): Promise<ManagedUser> {
    const acting = await loadActor(this.deps.accounts, actor);
    const target = await this.target(id);
    assertMayEdit(acting, target);
    if (request.disabled === true && target.id === acting.id) throw selfAction('disable');
    const passwordHash =
      request.password === undefined ? undefined : await this.deps.hasher.hash(request.password);
    const changes: UserChanges = {
      displayName: request.displayName === undefined ? undefined : request.displayName || target.username,
      passwordHash,
      disabled: request.disabled,
      webPlayback: request.webPlayback,
      driveAPlayMode: request.driveAPlayMode,
    };
    const revoke = passwordHash !== undefined || (request.disabled === true && !target.disabled);
    const now = this.now();
    const updated = await this.deps.transact(async (repositories) => {
      if (request.disabled === true && target.role === 'admin' && !target.disabled) {
        await repositories.accounts.lockAdministrators();
        if ((await repositories.accounts.countActiveAdmins(target.id)) === 0) throw lastAdmin();
      }
      const row = await repositories.accounts.update(id, changes, now);
      if (!row) throw notFound('user');
      if (revoke) await repositories.tokens.revokeAllOfUser(id, now);
      const { password: _password, ...visible } = request;
      if (Object.values(visible).some((value) => value !== undefined)) {
        await this.audit(repositories, actor, now, { action: 'user.update', target: row, details: visible });
      }
      if (passwordHash !== undefined) {
        await this.audit(repositories, actor, now, {
          action: 'user.password-reset',
          target: row,
          details: {},
        });
      }
      return row;
    });
    if (revoke) await this.deps.revocations.user(id);
    return toManagedUser(updated);
  }

  /** Not yourself, and not the last enabled administrator. */
  async delete(actor: Actor, id: string): Promise<void> {
    const acting = await loadActor(this.deps.accounts, actor);
    const target = await this.target(id);
    if (target.id === acting.id) throw selfAction('delete');
    assertMayEdit(acting, target);
    const now = this.now();
    await this.deps.transact(async (repositories) => {
      if (target.role === 'admin') {
        await repositories.accounts.lockAdministrators();
        const fresh = await repositories.accounts.findById(id);
        if (!fresh) throw notFound('user');
        if (!fresh.disabled && (await repositories.accounts.countActiveAdmins(id)) === 0) throw lastAdmin();
      }
      if (!(await repositories.accounts.delete(id))) throw notFound('user');
      await this.audit(repositories, actor, now, {
        action: 'user.delete',
        target,
        details: { username: target.username, role: target.role },
      });
    });
    await this.deps.revocations.user(id);
  }

  /** Delegable keys only (the schema refuses others); a non-administrator grants only keys it holds. */
  async setPermissions(actor: Actor, id: string, permissions: DelegablePermission[]): Promise<ManagedUser> {
    const acting = await loadActor(this.deps.accounts, actor);
    const target = await this.target(id);
    assertMayEdit(acting, target);
    const wanted = unique(permissions);
    assertMayGrant(acting, wanted, target.permissions);
    const now = this.now();
    const updated = await this.deps.transact(async (repositories) => {
      const row = await repositories.accounts.update(id, { permissions: wanted }, now);
      if (!row) throw notFound('user');
      await this.audit(repositories, actor, now, {
        action: 'user.permissions',
        target: row,
        details: { before: target.permissions, after: wanted },
      });
      return row;
    });
    // What introspection answers for this user changed: gateways drop their cached answers.
    await this.deps.revocations.user(id);
    return toManagedUser(updated);
  }

  private async target(id: string): Promise<UserRow> {
    const user = await this.deps.accounts.findById(id);
    if (!user) throw notFound('user');
    return user;
  }

  private now(): Date {
    return new Date(this.deps.clock.now());
  }

  private async audit(
    repositories: UserRepositories,
    actor: Actor,
    now: Date,
    entry: { action: AuditAction; target: UserRow; details: Record<string, unknown> },
  ): Promise<void> {
    const input: AuditInput = {
      actor: { userId: actor.identity.userId, username: actor.identity.username },
      action: entry.action,
      target: { type: 'user', id: entry.target.id },
      details: { username: entry.target.username, ...entry.details },
      clientIp: actor.clientIp,
    };
    await repositories.audit.insert(auditRecord(input, now));
  }
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
