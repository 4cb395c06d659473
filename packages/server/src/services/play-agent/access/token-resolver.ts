import { LRUCache } from 'lru-cache';
import type { PlaybackDevice, TokenKind } from '@svc/contracts';
import type { UserClient } from '../upstream/user-client.js';

/** Who presented a token: the account and the token (a device signs in with its own token). */
export interface Player {
  userId: string;
  username: string;
  isAdmin: boolean;
  /** `access`: a portal token, i.e. web playback in the browser (allowed only while its switches are on). */
  tokenKind: TokenKind;
  tokenId: string;
  token: string;
  /** The client and device the token was issued to (playback tokens that named one). */
  device?: PlaybackDevice;
}

/** Token kinds a player may present: its own playback token, or a portal access token (web playback). */
const KIND_BY_PREFIX: [string, TokenKind][] = [
  ['svc_ply_', 'playback'],
  ['svc_acc_', 'access'],
];

/** How long an answer of the user service is reused; a revoked token stops working within this time. */
export const TOKEN_CACHE_MS = 10_000;

/** Resolves player tokens through the user service, caching answers briefly (positive and negative). */
export class TokenResolver {
  private readonly cache = new LRUCache<string, { player: Player | null }>({
    max: 20_000,
    ttl: TOKEN_CACHE_MS,
  });
  private readonly inflight = new Map<string, Promise<Player | null>>();

  constructor(private readonly users: Pick<UserClient, 'introspect'>) {}

  async resolve(token: string): Promise<Player | null> {
    const kind = KIND_BY_PREFIX.find(([prefix]) => token.startsWith(prefix))?.[1];
    if (!kind || token.length > 512) return null;
    const cached = this.cache.get(token);
    if (cached) return cached.player;
    const running = this.inflight.get(token);
    if (running) return running;
    const lookup = (async () => {
      try {
        const answer = await this.users.introspect(token, kind);
        const player: Player | null = answer.active
          ? {
              userId: answer.userId,
              username: answer.username,
              isAdmin: answer.role === 'admin',
              tokenKind: kind,
              tokenId: answer.tokenId,
              token,
              ...(answer.device ? { device: answer.device } : {}),
            }
          : null;
        this.cache.set(token, { player });
        return player;
      } finally {
        this.inflight.delete(token);
      }
    })();
    this.inflight.set(token, lookup);
    return lookup;
  }

  /** Forget a token at once (sign-out through this node). */
  forget(token: string): void {
    this.cache.delete(token);
  }
}
