import { LRUCache } from 'lru-cache';

/** A direct link as the storage node hands it out. */
export interface ResolvedLink {
  url: string;
  /** Null when the link names no expiry. */
  expiresAt: Date | null;
  headers: Record<string, string>;
}

const MINUTE = 60_000;
/** Links that name no usable expiry are kept this long (spec: the 30-minute fallback). */
export const FALLBACK_TTL_MS = 30 * MINUTE;
/** A refused token is not asked about again for this long. */
export const NEGATIVE_TTL_MS = 5 * MINUTE;

/**
 * How long a link may be handed out again (docs/drives.md, "Link cache"): up to one minute before its
 * expiry when more than two minutes remain; 30 minutes when it names no expiry; not kept at all when it
 * expires within two minutes (keeping it 30 minutes would hand out a dead link).
 */
export function linkTtlMs(expiresAt: Date | null, now: number): number {
  if (expiresAt === null) return FALLBACK_TTL_MS;
  const remaining = expiresAt.getTime() - now;
  return remaining > 2 * MINUTE ? remaining - MINUTE : 0;
}

type Entry =
  { kind: 'link'; link: ResolvedLink; until: number } | { kind: 'refused'; error: Error; until: number };

/**
 * The play-agent's cache of direct links, keyed `providerCode:itemId:accountId`. Concurrent requests for
 * one key share one call to the storage node; a token-invalid answer is remembered for NEGATIVE_TTL_MS.
 * Time comes from `now` so tests can move it.
 */
export class LinkCache {
  private readonly entries = new LRUCache<string, Entry>({ max: 20_000 });
  private readonly inFlight = new Map<string, Promise<ResolvedLink>>();

  constructor(
    private readonly options: {
      now: () => number;
      /** Whether an error means the drive refused the account's token (cached negatively). */
      isTokenInvalid: (error: unknown) => boolean;
    },
  ) {}

  static key(provider: string, itemId: string, accountId: string): string {
    return `${provider}:${itemId}:${accountId}`;
  }

  async get(key: string, fetch: () => Promise<ResolvedLink>): Promise<ResolvedLink> {
    const now = this.options.now();
    const entry = this.entries.get(key);
    if (entry && entry.until > now) {
      if (entry.kind === 'refused') throw entry.error;
      return entry.link;
    }
    if (entry) this.entries.delete(key);
    const running = this.inFlight.get(key);
    if (running) return running;
    const call = this.resolve(key, fetch).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, call);
    return call;
  }

  private async resolve(key: string, fetch: () => Promise<ResolvedLink>): Promise<ResolvedLink> {
    try {
      const link = await fetch();
      const ttl = linkTtlMs(link.expiresAt, this.options.now());
      if (ttl > 0) this.entries.set(key, { kind: 'link', link, until: this.options.now() + ttl });
      return link;
    } catch (error) {
      if (this.options.isTokenInvalid(error)) {
        this.entries.set(key, {
          kind: 'refused',
          error: error as Error,
          until: this.options.now() + NEGATIVE_TTL_MS,
        });
      }
      throw error;
    }
  }

  /** Drops every entry (the drive's account changed). */
  clear(): void {
    this.entries.clear();
  }
}
