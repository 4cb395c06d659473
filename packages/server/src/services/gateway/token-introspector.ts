import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { request } from 'undici';
import { introspectResponseSchema, type IntrospectResponse, type TokenKind } from '@svc/contracts';
import type { Cache, Clock } from '../../platform/cache/index.js';
import type { Logger } from '../../platform/logger.js';
import { SERVICE_TOKEN_HEADER } from '../../platform/service-token.js';

/** Channel on which the user service announces revoked tokens ({tokenIds:[...]} or {userId}). */
export const REVOCATION_CHANNEL = 'auth:revoked';

export interface TokenIntrospectorOptions {
  serviceToken: string;
  /** Finds the user service's base URL (through the registry). */
  userServiceUrl: () => Promise<string>;
  cache: Cache;
  logger: Logger;
  /** How long an answer is reused; revocations evict earlier through the channel. */
  ttlMs?: number;
  clock: Clock;
}

type Active = Extract<IntrospectResponse, { active: true }>;

/**
 * Asks the user service whether a token is valid, remembering answers briefly so that a token check
 * costs a hash and a map lookup on most requests. Revocations arrive on a cache channel and evict at once.
 */
export class TokenIntrospector {
  private readonly answers: LRUCache<string, IntrospectResponse>;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(private readonly options: TokenIntrospectorOptions) {
    this.answers = new LRUCache({ max: 20_000, ttl: options.ttlMs ?? 10_000 });
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.options.cache.subscribe(REVOCATION_CHANNEL, (message) =>
      this.evict(message),
    );
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
  }

  private evict(message: string): void {
    let parsed: { tokenIds?: unknown; userId?: unknown };
    try {
      parsed = JSON.parse(message) as { tokenIds?: unknown; userId?: unknown };
    } catch {
      return;
    }
    const tokenIds = Array.isArray(parsed.tokenIds) ? new Set(parsed.tokenIds) : undefined;
    for (const [key, answer] of this.answers.entries()) {
      if (!answer.active) continue;
      if (
        tokenIds?.has(answer.tokenId) ||
        (typeof parsed.userId === 'string' && answer.userId === parsed.userId)
      ) {
        this.answers.delete(key);
      }
    }
  }

  async check(token: string, kind: TokenKind): Promise<Active | undefined> {
    const key = createHash('sha256').update(`${kind}:${token}`).digest('base64url');
    let answer = this.answers.get(key);
    if (!answer) {
      answer = await this.ask(token, kind);
      this.answers.set(key, answer, answer.active ? {} : { ttl: 2_000 });
    }
    if (!answer.active) return undefined;
    return Date.parse(answer.expiresAt) > this.options.clock.now() ? answer : undefined;
  }

  private async ask(token: string, kind: TokenKind): Promise<IntrospectResponse> {
    const base = await this.options.userServiceUrl();
    const response = await request(`${base}/api/auth/internal/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SERVICE_TOKEN_HEADER]: this.options.serviceToken },
      body: JSON.stringify({ token, kind }),
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new Error(`token introspection answered ${response.statusCode}`);
    }
    return introspectResponseSchema.parse(await response.body.json());
  }
}
