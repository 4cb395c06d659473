import { randomUUID } from 'node:crypto';
import type { PlaybackLoginRequest, PlaybackLoginResponse, PlaybackUser } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { errorCode } from '../../../platform/db/errors.js';
import { notFound } from '../../../platform/http/errors.js';
import type { AccountsRepository, UserRow } from '../accounts/accounts.repository.js';
import { checkCredentials, invalidCredentials } from './credential-check.js';
import { newToken, TOKEN_LIFETIME_MS, tokenHash } from '../tokens/auth-tokens.js';
import type { LoginLock } from './login-lock.js';
import type { PasswordHasher } from './password-hasher.js';
import type { RevocationNotifier } from '../tokens/revocations.js';
import type { TokensRepository } from '../tokens/tokens.repository.js';
import type { Port, Transactor } from '../user-repositories.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface PlaybackAuthServiceDeps {
  accounts: Pick<Port<AccountsRepository>, 'findById' | 'findByUsername'>;
  tokens: Pick<Port<TokensRepository>, 'revokeOfKind'>;
  transact: Transactor;
  hasher: Pick<PasswordHasher, 'verify' | 'verifyDummy'>;
  lock: Pick<LoginLock, 'lockedForMs' | 'recordFailure' | 'recordSuccess'>;
  revocations: Pick<RevocationNotifier, 'tokens'>;
  clock: Clock;
}

export function toPlaybackUser(user: UserRow): PlaybackUser {
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    disabled: user.disabled,
    createdAt: new Date(user.created_at).toISOString(),
    lastLoginAt: user.last_login_at === null ? null : new Date(user.last_login_at).toISOString(),
  };
}

/**
 * Sign-in of playback clients, which reach the user service only through a play-agent. The rules are those
 * of the console and portal sign-in (docs/auth.md): the (client IP, user name) lock is checked first and
 * shared with them, unknown users, wrong passwords and disabled accounts all answer 401
 * INVALID_CREDENTIALS after one scrypt computation. Every enabled account may play.
 */
export class PlaybackAuthService {
  constructor(private readonly deps: PlaybackAuthServiceDeps) {}

  async login(request: PlaybackLoginRequest): Promise<PlaybackLoginResponse> {
    const user = await checkCredentials(this.deps, request);

    const now = new Date(this.deps.clock.now());
    const token = {
      id: randomUUID(),
      token: newToken('playback'),
      expiresAt: new Date(now.getTime() + TOKEN_LIFETIME_MS.playback),
    };
    const signedIn = await this.deps
      .transact(async (repositories) => {
        await repositories.tokens.insert({
          id: token.id,
          userId: user.id,
          kind: 'playback',
          hash: tokenHash(token.token),
          createdAt: now,
          expiresAt: token.expiresAt,
          device: request.device,
          nodeId: request.nodeId,
        });
        return repositories.accounts.recordLogin(user.id, now);
      })
      .catch((error: unknown) => {
        // The account was deleted since it was read (foreign key of the token): as if it never existed.
        if (errorCode(error) === '23503') return undefined;
        throw error;
      });
    if (!signedIn) throw invalidCredentials();
    return {
      accessToken: token.token,
      tokenId: token.id,
      expiresAt: token.expiresAt.toISOString(),
      user: toPlaybackUser(signedIn),
    };
  }

  /** Revokes a playback token (and only a playback token); unknown or revoked ids are no error. */
  async logout(tokenId: string): Promise<void> {
    const now = new Date(this.deps.clock.now());
    if (await this.deps.tokens.revokeOfKind(tokenId, 'playback', now)) {
      await this.deps.revocations.tokens([tokenId]);
    }
  }

  /** 404 for unknown users, and for ids that are not UUIDs (no account has one). */
  async user(id: string): Promise<PlaybackUser> {
    const user = UUID.test(id) ? await this.deps.accounts.findById(id) : undefined;
    if (!user) throw notFound('user');
    return toPlaybackUser(user);
  }
}
