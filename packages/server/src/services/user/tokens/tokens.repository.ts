import type { Kysely, Selectable } from 'kysely';
import type { TokenKind } from '@svc/contracts';
import type { AuthTokensTable, UserDatabase } from '../user.db.js';
import type { UserRow } from '../accounts/accounts.repository.js';

export type TokenRow = Selectable<AuthTokensTable>;

export interface NewToken {
  id: string;
  userId: string;
  kind: TokenKind;
  hash: string;
  createdAt: Date;
  expiresAt: Date;
  /** Playback tokens: the device a player named and the play-agent node it signed in on. */
  device?: { client: string; deviceName: string; deviceId: string; version: string };
  nodeId?: string;
}

/** The row a new token is stored as: never used, not revoked, device fields null unless a player named them. */
export function newTokenRow(token: NewToken): TokenRow {
  return {
    id: token.id,
    user_id: token.userId,
    kind: token.kind,
    token_hash: token.hash,
    created_at: token.createdAt,
    expires_at: token.expiresAt,
    last_used_at: null,
    revoked_at: null,
    client: token.device?.client ?? null,
    device_name: token.device?.deviceName ?? null,
    device_id: token.device?.deviceId ?? null,
    client_version: token.device?.version ?? null,
    node_id: token.nodeId ?? null,
  };
}

export class TokensRepository {
  constructor(private readonly db: Kysely<UserDatabase>) {}

  async insert(token: NewToken): Promise<void> {
    await this.db.insertInto('auth_tokens').values(newTokenRow(token)).execute();
  }

  /** The token with that hash and kind and its owner, whatever its state (the caller judges it). */
  async findWithOwner(
    hash: string,
    kind: TokenKind,
  ): Promise<{ token: TokenRow; user: UserRow } | undefined> {
    const token = await this.db
      .selectFrom('auth_tokens')
      .selectAll()
      .where('token_hash', '=', hash)
      .where('kind', '=', kind)
      .executeTakeFirst();
    if (!token) return undefined;
    const user = await this.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', token.user_id)
      .executeTakeFirst();
    return user ? { token, user } : undefined;
  }

  async touch(id: string, now: Date): Promise<void> {
    await this.db.updateTable('auth_tokens').set({ last_used_at: now }).where('id', '=', id).execute();
  }

  /** Revokes one token of the user; false when it was not a live token of theirs. */
  async revoke(id: string, userId: string, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('auth_tokens')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Revokes a live token of the given kind by its id alone (a play-agent signing a player out); false when
   * there was no such token.
   */
  async revokeOfKind(id: string, kind: TokenKind, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('auth_tokens')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('kind', '=', kind)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Revokes every token of the user; answers how many were still unrevoked. */
  async revokeAllOfUser(userId: string, now: Date): Promise<number> {
    const result = await this.db
      .updateTable('auth_tokens')
      .set({ revoked_at: now })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Deletes tokens that expired or were revoked before the given time. */
  async pruneBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('auth_tokens')
      .where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
