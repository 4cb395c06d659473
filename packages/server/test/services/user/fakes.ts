import type { LibraryAccess, NodeAccess, Quotas } from '@svc/contracts';
import type {
  NewUser,
  UserChanges,
  UserRow,
} from '../../../src/services/user/accounts/accounts.repository.js';
import type { NewActivityRow } from '../../../src/services/user/activity/activity-log.repository.js';
import type { AuditRow, NewAuditRecord } from '../../../src/services/user/audit/audit.repository.js';
import {
  uploadNotFound,
  type UploadedImage,
  type UploadedImages,
} from '../../../src/services/user/branding/logo-uploads.client.js';
import type {
  NodeDirectory,
  DirectoryServiceType,
} from '../../../src/services/user/playback-access/node-directory.js';
import {
  newTokenRow,
  type NewToken,
  type TokenRow,
} from '../../../src/services/user/tokens/tokens.repository.js';
import type { Transactor, UserRepositories } from '../../../src/services/user/user-repositories.js';

/**
 * In-memory repositories for unit tests of the services. `transact` runs the work on a copy of the
 * state and keeps it only when the work succeeds, like a database transaction.
 */
export class FakeStore {
  users = new Map<string, UserRow>();
  tokens = new Map<string, TokenRow>();
  audit: AuditRow[] = [];
  nodeAccess = new Map<string, NodeAccess>();
  libraryAccess = new Map<string, LibraryAccess>();
  quotas = new Map<string, Quotas>();
  usage = new Map<string, number>();
  settings = new Map<string, unknown>();
  activity = new Map<string, NewActivityRow>();
  /** Counts calls by "repository.method". */
  calls = new Map<string, number>();

  readonly repositories: UserRepositories = this.bind(() => this);

  readonly transact: Transactor = async (work) => {
    const draft = this.clone();
    try {
      const result = await work(draft.repositories);
      Object.assign(this, {
        users: draft.users,
        tokens: draft.tokens,
        audit: draft.audit,
        nodeAccess: draft.nodeAccess,
        libraryAccess: draft.libraryAccess,
        quotas: draft.quotas,
        usage: draft.usage,
        settings: draft.settings,
        activity: draft.activity,
      });
      return result;
    } finally {
      // Calls count also in work that failed (its writes are dropped).
      for (const [name, count] of draft.calls) this.count(name, count);
    }
  };

  count(name: string, by = 1): void {
    this.calls.set(name, (this.calls.get(name) ?? 0) + by);
  }

  called(name: string): number {
    return this.calls.get(name) ?? 0;
  }

  private clone(): FakeStore {
    const copy = new FakeStore();
    copy.users = new Map([...this.users].map(([k, v]) => [k, structuredClone(v)]));
    copy.tokens = new Map([...this.tokens].map(([k, v]) => [k, structuredClone(v)]));
    copy.audit = structuredClone(this.audit);
    copy.nodeAccess = structuredClone(this.nodeAccess);
    copy.libraryAccess = structuredClone(this.libraryAccess);
    copy.quotas = structuredClone(this.quotas);
    copy.usage = new Map(this.usage);
    copy.settings = structuredClone(this.settings);
    copy.activity = structuredClone(this.activity);
    return copy;
  }

  private bind(state: () => FakeStore): UserRepositories {
    const s = state;
    const track = (name: string) => s().count(name);
    return {
      accounts: {
        findById: async (id) => (track('accounts.findById'), s().users.get(id)),
        findByUsername: async (username) =>
          [...s().users.values()].find((u) => u.username.toLowerCase() === username.trim().toLowerCase()),
        lockAdministrators: async () => track('accounts.lockAdministrators'),
        adminExists: async () => [...s().users.values()].some((u) => u.role === 'admin'),
        countEnabledUsers: async () =>
          [...s().users.values()].filter((u) => u.role !== 'admin' && !u.disabled).length,
        countActiveAdmins: async (exceptId) =>
          [...s().users.values()].filter((u) => u.role === 'admin' && !u.disabled && u.id !== exceptId)
            .length,
        insert: async (user: NewUser) => {
          track('accounts.insert');
          const row: UserRow = {
            id: user.id,
            username: user.username,
            display_name: user.displayName,
            role: user.role,
            disabled: false,
            password_hash: user.passwordHash,
            permissions: user.permissions,
            web_playback: user.webPlayback,
            drive_a_play_mode: user.driveAPlayMode,
            created_at: user.now,
            updated_at: user.now,
            last_login_at: null,
          };
          s().users.set(row.id, row);
          return row;
        },
        update: async (id, changes: UserChanges, now) => {
          track('accounts.update');
          const row = s().users.get(id);
          if (!row) return undefined;
          if (changes.displayName !== undefined) row.display_name = changes.displayName;
          if (changes.passwordHash !== undefined) row.password_hash = changes.passwordHash;
          if (changes.disabled !== undefined) row.disabled = changes.disabled;
          if (changes.permissions !== undefined) row.permissions = changes.permissions;
          if (changes.webPlayback !== undefined) row.web_playback = changes.webPlayback;
          if (changes.driveAPlayMode !== undefined) row.drive_a_play_mode = changes.driveAPlayMode;
          row.updated_at = now;
          return row;
        },
        recordLogin: async (id, at) => {
          track('accounts.recordLogin');
          const row = s().users.get(id);
          if (row) row.last_login_at = at;
          return row;
        },
        delete: async (id) => (track('accounts.delete'), s().users.delete(id)),
        list: async ({ offset, limit }) => {
          const rows = [...s().users.values()].sort((a, b) => a.username.localeCompare(b.username));
          return { rows: rows.slice(offset, offset + limit), total: rows.length };
        },
      },
      tokens: {
        insert: async (token: NewToken) => {
          track('tokens.insert');
          s().tokens.set(token.id, newTokenRow(token));
        },
        findWithOwner: async (hash, kind) => {
          const token = [...s().tokens.values()].find((t) => t.token_hash === hash && t.kind === kind);
          const user = token && s().users.get(token.user_id);
          return token && user ? { token, user } : undefined;
        },
        touch: async (id, now) => {
          track('tokens.touch');
          const token = s().tokens.get(id);
          if (token) token.last_used_at = now;
        },
        revoke: async (id, userId, now) => {
          const token = s().tokens.get(id);
          if (!token || token.user_id !== userId || token.revoked_at) return false;
          token.revoked_at = now;
          return true;
        },
        revokeOfKind: async (id, kind, now) => {
          const token = s().tokens.get(id);
          if (!token || token.kind !== kind || token.revoked_at) return false;
          token.revoked_at = now;
          return true;
        },
        revokeAllOfUser: async (userId, now) => {
          track('tokens.revokeAllOfUser');
          let count = 0;
          for (const token of s().tokens.values()) {
            if (token.user_id === userId && !token.revoked_at) {
              token.revoked_at = now;
              count++;
            }
          }
          return count;
        },
        pruneBefore: async () => 0,
      },
      audit: {
        insert: async (record: NewAuditRecord) => {
          s().audit.push({
            id: s().audit.length + 1,
            at: record.at,
            actor_id: record.actorId,
            actor_name: record.actorName,
            action: record.action,
            target_type: record.targetType,
            target_id: record.targetId,
            details: record.details,
            client_ip: record.clientIp,
          });
        },
        list: async ({ offset, limit }) => ({
          rows: [...s().audit].reverse().slice(offset, offset + limit),
          total: s().audit.length,
        }),
      },
      access: {
        nodeAccess: async (userId) => structuredClone(s().nodeAccess.get(userId)),
        setNodeAccess: async (userId, access) => {
          track('access.setNodeAccess');
          s().nodeAccess.set(userId, structuredClone(access));
        },
        libraryAccess: async (userId) => structuredClone(s().libraryAccess.get(userId)),
        setLibraryAccess: async (userId, access) => {
          track('access.setLibraryAccess');
          s().libraryAccess.set(userId, structuredClone(access));
        },
        quotas: async (userId) => structuredClone(s().quotas.get(userId) ?? { total: null, routes: [] }),
        replaceQuotas: async (userId, quotas) => {
          track('access.replaceQuotas');
          s().quotas.set(userId, structuredClone(quotas));
        },
      },
      usage: {
        add: async (userId, scopeKeys, day, bytes) => {
          for (const key of scopeKeys) {
            const id = `${userId}|${key}|${day}`;
            s().usage.set(id, (s().usage.get(id) ?? 0) + bytes);
          }
        },
        since: async (userId, scopeKeys, fromDay) =>
          [...s().usage]
            .map(([id, bytes]) => {
              const [user, scopeKey, day] = id.split('|') as [string, string, string];
              return { user, scopeKey, day, bytes };
            })
            .filter((row) => row.user === userId && scopeKeys.includes(row.scopeKey) && row.day >= fromDay)
            .map(({ scopeKey, day, bytes }) => ({ scopeKey, day, bytes })),
      },
      settings: {
        get: async (key) => structuredClone(s().settings.get(key)),
        set: async (key, value) => {
          s().settings.set(key, structuredClone(value));
        },
      },
      activity: {
        latest: async (userId, limit) =>
          [...s().activity.values()]
            .filter((row) => row.user_id === userId)
            .map((row, index) => ({ ...structuredClone(row), id: index + 1 }) as never)
            .reverse()
            .slice(0, limit),
        usernames: async (userIds) =>
          new Map(userIds.flatMap((id) => (s().users.has(id) ? [[id, s().users.get(id)!.username]] : []))),
        insertMany: async (rows) => {
          let inserted = 0;
          for (const row of rows) {
            if (s().activity.has(row.event_id)) continue;
            s().activity.set(row.event_id, structuredClone(row));
            inserted++;
          }
          return inserted;
        },
      },
    };
  }
}

/** A node directory with a fixed set of records. */
export class FakeNodeDirectory implements NodeDirectory {
  asked: string[][] = [];
  constructor(private readonly nodes: Record<string, DirectoryServiceType>) {}
  async find(ids: string[]) {
    this.asked.push(ids);
    return ids.filter((id) => id in this.nodes).map((id) => ({ nodeId: id, serviceType: this.nodes[id]! }));
  }
}

/** Uploaded images kept in memory, as the config service keeps them until a logo is saved. */
export class FakeUploadedImages implements UploadedImages {
  readonly uploads = new Map<string, UploadedImage>();
  async fetch(uploadId: string): Promise<UploadedImage> {
    const found = this.uploads.get(uploadId);
    if (!found) throw uploadNotFound(uploadId);
    return found;
  }
  async discard(uploadId: string): Promise<void> {
    this.uploads.delete(uploadId);
  }
}
