import { randomUUID } from 'node:crypto';
import type {
  Account,
  ChangePasswordRequest,
  Identity,
  IntrospectResponse,
  LoginRequest,
  LoginResponse,
  TokenKind,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError, unauthorized } from '../../../platform/http/errors.js';
import type { AccountsRepository } from '../accounts/accounts.repository.js';
import { newToken, TOKEN_LIFETIME_MS, tokenHash } from '../tokens/auth-tokens.js';
import { checkCredentials, LoginLockedError, refuseIfLocked } from './credential-check.js';
import type { LoginLock } from './login-lock.js';
import type { PasswordHasher } from './password-hasher.js';
import type { RevocationNotifier } from '../tokens/revocations.js';
import type { TokensRepository } from '../tokens/tokens.repository.js';
import { effectivePermissions, toAccount } from '../accounts/user-mappers.js';
import type { Port, Transactor } from '../user-repositories.js';

/** last_used_at is written at most this often per token. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export { LoginLockedError };

export interface AuthServiceDeps {
  accounts: Pick<Port<AccountsRepository>, 'findById' | 'findByUsername'>;
  tokens: Pick<Port<TokensRepository>, 'findWithOwner' | 'touch' | 'revoke'>;
  transact: Transactor;
  hasher: Pick<PasswordHasher, 'hash' | 'verify' | 'verifyDummy'>;
  lock: Pick<LoginLock, 'lockedForMs' | 'recordFailure' | 'recordSuccess'>;
  revocations: Pick<RevocationNotifier, 'tokens' | 'user'>;
  clock: Clock;
}

/** Sign-in, sign-out, the signed-in account and token introspection for the gateway. */
export class AuthService {
  constructor(private readonly deps: AuthServiceDeps) {}

  /**
   * A locked (IP, user name) pair is refused before the password is looked at. Unknown users, wrong
   * passwords and disabled accounts all answer 401 INVALID_CREDENTIALS after one scrypt computation.
   */
  async login(request: LoginRequest, clientIp: string): Promise<LoginResponse> {
    const user = await checkCredentials(this.deps, { ...request, clientIp });

    if (request.client === 'console' && user.role !== 'admin' && user.permissions.length === 0) {
      throw new AppError(403, 'CONSOLE_NOT_ALLOWED', 'this account has no console permission');
    }
    const kinds: TokenKind[] = request.client === 'console' ? ['admin', 'access'] : ['access'];
    const now = this.deps.clock.now();
    const issued = kinds.map((kind) => ({
      kind,
      id: randomUUID(),
      token: newToken(kind),
      expiresAt: new Date(now + TOKEN_LIFETIME_MS[kind]),
    }));
    await this.deps.transact(async ({ tokens }) => {
      for (const token of issued) {
        await tokens.insert({
          id: token.id,
          userId: user.id,
          kind: token.kind,
          hash: tokenHash(token.token),
          createdAt: new Date(now),
          expiresAt: token.expiresAt,
        });
      }
    });
    const access = issued.find((token) => token.kind === 'access')!;
    const admin = issued.find((token) => token.kind === 'admin');
    return {
      ...(admin ? { adminToken: admin.token, adminTokenExpiresAt: admin.expiresAt.toISOString() } : {}),
      accessToken: access.token,
      accessTokenExpiresAt: access.expiresAt.toISOString(),
      user: toAccount(user),
    };
  }

  /** Revokes the token the caller presented. */
  async logout(identity: Identity): Promise<void> {
    const now = new Date(this.deps.clock.now());
    if (await this.deps.tokens.revoke(identity.tokenId, identity.userId, now)) {
      await this.deps.revocations.tokens([identity.tokenId]);
    }
  }

  async me(identity: Identity): Promise<Account> {
    const user = await this.deps.accounts.findById(identity.userId);
    if (!user || user.disabled) throw unauthorized('this account can no longer sign in');
    return toAccount(user);
  }

  /**
   * Changes the caller's own password and revokes every token of the account (all sessions sign in
   * again). A wrong current password counts as a sign-in failure of the pair, so a stolen token cannot be
   * used to guess the password faster than the sign-in page allows.
   */
  async changePassword(identity: Identity, request: ChangePasswordRequest, clientIp: string): Promise<void> {
    const { accounts, hasher, lock } = this.deps;
    const user = await accounts.findById(identity.userId);
    if (!user || user.disabled) throw unauthorized('this account can no longer sign in');
    await refuseIfLocked(lock, clientIp, user.username);
    if (!(await hasher.verify(request.currentPassword, user.password_hash))) {
      await lock.recordFailure(clientIp, user.username);
      throw new AppError(400, 'INVALID_CURRENT_PASSWORD', 'the current password is wrong');
    }
    const passwordHash = await hasher.hash(request.newPassword);
    const now = new Date(this.deps.clock.now());
    await this.deps.transact(async (repositories) => {
      await repositories.accounts.update(user.id, { passwordHash }, now);
      await repositories.tokens.revokeAllOfUser(user.id, now);
    });
    await this.deps.revocations.user(user.id);
  }

  /** Active only for a known, unrevoked, unexpired token of that kind whose account is enabled. */
  async introspect(request: { token: string; kind: TokenKind }): Promise<IntrospectResponse> {
    const found = await this.deps.tokens.findWithOwner(tokenHash(request.token), request.kind);
    const now = this.deps.clock.now();
    if (!found) return { active: false };
    const { token, user } = found;
    if (token.revoked_at !== null || new Date(token.expires_at).getTime() <= now || user.disabled) {
      return { active: false };
    }
    const lastUsed = token.last_used_at === null ? null : new Date(token.last_used_at).getTime();
    if (lastUsed === null || now - lastUsed >= LAST_USED_RESOLUTION_MS) {
      await this.deps.tokens.touch(token.id, new Date(now));
    }
    return {
      active: true,
      userId: user.id,
      username: user.username,
      role: user.role,
      permissions: effectivePermissions(user),
      tokenId: token.id,
      expiresAt: new Date(token.expires_at).toISOString(),
      ...(token.client === null && token.device_name === null && token.device_id === null
        ? {}
        : {
            device: {
              client: token.client ?? '',
              deviceName: token.device_name ?? '',
              deviceId: token.device_id ?? '',
              version: token.client_version ?? '',
            },
          }),
    };
  }
}
