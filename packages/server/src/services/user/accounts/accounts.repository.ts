import { sql, type Kysely, type Selectable } from 'kysely';
import type { AccountRole, DelegablePermission, DriveAPlayMode } from '@svc/contracts';
import { advisoryLockKey } from '../../../platform/db/index.js';
import type { UserDatabase, UsersTable } from '../user.db.js';

export type UserRow = Selectable<UsersTable>;

export interface NewUser {
  id: string;
  username: string;
  displayName: string;
  role: AccountRole;
  passwordHash: string;
  permissions: DelegablePermission[];
  webPlayback: boolean;
  driveAPlayMode: DriveAPlayMode;
  now: Date;
}

export interface UserChanges {
  displayName?: string;
  passwordHash?: string;
  disabled?: boolean;
  permissions?: DelegablePermission[];
  webPlayback?: boolean;
  driveAPlayMode?: DriveAPlayMode;
}

/** Every change that could leave the install without an administrator takes this lock first. */
const ADMINS_LOCK = advisoryLockKey('svc_user:administrators');

export class AccountsRepository {
  constructor(private readonly db: Kysely<UserDatabase>) {}

  async findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Case-insensitive; the name is trimmed first. */
  async findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where(sql<string>`lower(username)`, '=', username.trim().toLowerCase())
      .executeTakeFirst();
  }

  /** Serialises administrator changes until the transaction ends (must run inside one). */
  async lockAdministrators(): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${ADMINS_LOCK}::bigint)`.execute(this.db);
  }

  async adminExists(): Promise<boolean> {
    const row = await this.db
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'admin')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Accounts that can sign in and are no administrators (the dashboard's first-run checklist). */
  async countEnabledUsers(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('role', '<>', 'admin')
      .where('disabled', '=', false)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** Administrators that can sign in, other than `exceptId`. */
  async countActiveAdmins(exceptId?: string): Promise<number> {
    let query = this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('role', '=', 'admin')
      .where('disabled', '=', false);
    if (exceptId) query = query.where('id', '<>', exceptId);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** Throws the database's unique violation (23505) when the name is taken. */
  async insert(user: NewUser): Promise<UserRow> {
    return this.db
      .insertInto('users')
      .values({
        id: user.id,
        username: user.username,
        display_name: user.displayName,
        role: user.role,
        disabled: false,
        password_hash: user.passwordHash,
        permissions: JSON.stringify(user.permissions),
        web_playback: user.webPlayback,
        drive_a_play_mode: user.driveAPlayMode,
        created_at: user.now,
        updated_at: user.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async update(id: string, changes: UserChanges, now: Date): Promise<UserRow | undefined> {
    return this.db
      .updateTable('users')
      .set({
        ...(changes.displayName === undefined ? {} : { display_name: changes.displayName }),
        ...(changes.passwordHash === undefined ? {} : { password_hash: changes.passwordHash }),
        ...(changes.disabled === undefined ? {} : { disabled: changes.disabled }),
        ...(changes.permissions === undefined ? {} : { permissions: JSON.stringify(changes.permissions) }),
        ...(changes.webPlayback === undefined ? {} : { web_playback: changes.webPlayback }),
        ...(changes.driveAPlayMode === undefined ? {} : { drive_a_play_mode: changes.driveAPlayMode }),
        updated_at: now,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /** Records a successful sign-in (not a change of the account: updated_at stays). */
  async recordLogin(id: string, at: Date): Promise<UserRow | undefined> {
    return this.db
      .updateTable('users')
      .set({ last_login_at: at })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /** Deletes the user; tokens, node access, quotas and usage go with it (foreign keys cascade). */
  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** A page of users ordered by user name; `search` matches user or display name, case-insensitively. */
  async list(options: {
    offset: number;
    limit: number;
    search?: string;
  }): Promise<{ rows: UserRow[]; total: number }> {
    let filtered = this.db.selectFrom('users');
    if (options.search) {
      const pattern = `%${options.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      filtered = filtered.where((eb) =>
        eb.or([
          eb(sql<string>`lower(username)`, 'like', pattern),
          eb(sql<string>`lower(display_name)`, 'like', pattern),
        ]),
      );
    }
    const [rows, count] = await Promise.all([
      filtered
        .selectAll()
        .orderBy(sql`lower(username)`)
        .offset(options.offset)
        .limit(options.limit)
        .execute(),
      filtered.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.count) };
  }
}
