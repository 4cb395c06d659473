import { LRUCache } from 'lru-cache';
import type { Identity, LibraryAccess } from '@svc/contracts';

/** The libraries a user may see: null for every library, else the ids (possibly none). */
export type LibraryFilter = readonly string[] | null;

/** How long the media service reuses a user's library access; an administrator's change applies within it. */
export const LIBRARY_ACCESS_CACHE_MS = 5_000;

export const allowsLibrary = (filter: LibraryFilter, libraryId: string): boolean =>
  filter === null || filter.includes(libraryId);

/** Asks the user service for a user's library access in effect (404 when the account does not exist). */
export type LibraryAccessSource = (userId: string) => Promise<LibraryAccess>;

/**
 * The one place the media service learns which libraries a user may see (docs/media.md, "Library access"):
 * every per-user answer (the play-agent's catalogue, the portal) filters through it. Answers are cached
 * briefly; a deleted account sees nothing, and a user service that cannot answer fails the request (503)
 * rather than widen it.
 */
export class LibraryAccessResolver {
  private readonly cache = new LRUCache<string, { filter: LibraryFilter }>({
    max: 10_000,
    ttl: LIBRARY_ACCESS_CACHE_MS,
  });
  private readonly inflight = new Map<string, Promise<LibraryFilter>>();

  constructor(private readonly source: LibraryAccessSource) {}

  /** Administrators see every library without asking. */
  async forIdentity(identity: Pick<Identity, 'userId' | 'role'>): Promise<LibraryFilter> {
    return identity.role === 'admin' ? null : this.forUser(identity.userId);
  }

  async forUser(userId: string): Promise<LibraryFilter> {
    const cached = this.cache.get(userId);
    if (cached) return cached.filter;
    const running = this.inflight.get(userId);
    if (running) return running;
    const lookup = this.source(userId)
      .then((access) => (access.mode === 'ALL' ? null : access.libraryIds))
      .catch((error: unknown) => {
        if ((error as { statusCode?: number }).statusCode === 404) return [];
        throw error;
      })
      .then((filter) => {
        this.cache.set(userId, { filter });
        return filter;
      })
      .finally(() => this.inflight.delete(userId));
    this.inflight.set(userId, lookup);
    return lookup;
  }
}
