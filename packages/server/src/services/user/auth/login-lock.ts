import { createHash } from 'node:crypto';
import type { Cache, Clock } from '../../../platform/cache/index.js';

/** Fixed by the spec: 5 consecutive failures lock the (IP, user name) pair for 60 s; a run of failures lives 120 s. */
export const LOGIN_LOCK = { maxFailures: 5, lockMs: 60_000, counterMs: 120_000 } as const;

/**
 * Cache lifetime of the keys. Only garbage collection: every decision compares timestamps stored in the
 * values with the injected clock, so a test clock (or a skew between Redis and us) cannot bend the rules.
 */
const GC_MS = 10 * 60_000;
/** A run's start outlives its counter and its end marker, so a re-created start never meets stale ones. */
const START_TTL_MS = GC_MS + 5 * 60_000;
/** More runs than this in one walk means garbage in the cache; start over rather than loop. */
const MAX_WALK = 64;

/**
 * Login failure lock shared through the cache, so that instances on one Redis agree.
 *
 * Failures of one pair are counted in numbered *runs*. Run n starts with the first failure after run n-1
 * ended; it ends 120 s after its first failure (by the clock), when it locks the pair, or on a successful
 * sign-in. Its start time is written once (`setIfAbsent`), so every instance walking from the same run number
 * reaches the same current run, and its counter is an atomic `incr`. Keys (below the cache prefix), with
 * `<pair>` = SHA-256 of `<ip>\n<lower-case user name>` (neither is stored in clear):
 *
 * - `auth:login:<pair>:lock` — epoch ms until which the pair is locked
 * - `auth:login:<pair>:run` — number of the latest run seen (a hint; walking forward corrects it)
 * - `auth:login:<pair>:run:<n>:start` — epoch ms of run n's first failure
 * - `auth:login:<pair>:run:<n>:count` — failures in run n
 * - `auth:login:<pair>:run:<n>:closed` — present once run n ended by a lock or a success
 */
export class LoginLock {
  constructor(
    private readonly cache: Cache,
    private readonly clock: Clock,
  ) {}

  /** Milliseconds the pair stays locked, 0 when it is not locked. */
  async lockedForMs(ip: string, username: string): Promise<number> {
    const until = Number(await this.cache.get(`${pairKey(ip, username)}:lock`));
    const left = Number.isFinite(until) ? until - this.clock.now() : 0;
    return left > 0 ? left : 0;
  }

  /** Counts a failed sign-in; the failure that reaches the threshold locks the pair (and ends the run). */
  async recordFailure(ip: string, username: string): Promise<{ failures: number; locked: boolean }> {
    const base = pairKey(ip, username);
    const now = this.clock.now();
    const run = await this.currentRun(base, now, true);
    const failures = await this.cache.incr(`${base}:run:${run}:count`, GC_MS);
    if (failures < LOGIN_LOCK.maxFailures) return { failures, locked: false };
    await this.cache.set(`${base}:lock`, String(now + LOGIN_LOCK.lockMs), LOGIN_LOCK.lockMs + GC_MS);
    await this.cache.set(`${base}:run:${run}:closed`, '1', GC_MS);
    return { failures, locked: true };
  }

  /** A successful sign-in ends the current run: the next failure counts from one. */
  async recordSuccess(ip: string, username: string): Promise<void> {
    const base = pairKey(ip, username);
    const run = await this.currentRun(base, this.clock.now(), false);
    if (run !== undefined) await this.cache.set(`${base}:run:${run}:closed`, '1', GC_MS);
  }

  /**
   * The run failures count in now: walks from the hint past runs that ended. With `open`, starts the next
   * run when none is going on; without, answers undefined then.
   */
  private async currentRun(base: string, now: number, open: true): Promise<number>;
  private async currentRun(base: string, now: number, open: false): Promise<number | undefined>;
  private async currentRun(base: string, now: number, open: boolean): Promise<number | undefined> {
    const hint = Number(await this.cache.get(`${base}:run`));
    let run = Number.isSafeInteger(hint) && hint >= 0 ? hint : 0;
    for (let step = 0; step < MAX_WALK; step++, run++) {
      const startKey = `${base}:run:${run}:start`;
      if (open) await this.cache.setIfAbsent(startKey, String(now), START_TTL_MS);
      const stored = await this.cache.get(startKey);
      if (stored === null) {
        if (!open) return undefined;
        continue;
      }
      const started = Number(stored);
      const ended =
        !Number.isFinite(started) ||
        now - started >= LOGIN_LOCK.counterMs ||
        (await this.cache.get(`${base}:run:${run}:closed`)) !== null;
      if (ended) continue;
      if (step > 0) await this.cache.set(`${base}:run`, String(run), GC_MS);
      return run;
    }
    // Only reachable with a corrupted cache: restart numbering far ahead of anything written.
    const fresh = run + MAX_WALK;
    await this.cache.set(`${base}:run`, String(fresh), GC_MS);
    if (!open) return undefined;
    await this.cache.setIfAbsent(`${base}:run:${fresh}:start`, String(now), START_TTL_MS);
    return fresh;
  }
}

function pairKey(ip: string, username: string): string {
  const digest = createHash('sha256').update(`${ip}\n${username.trim().toLowerCase()}`, 'utf8').digest('hex');
  return `auth:login:${digest}`;
}
