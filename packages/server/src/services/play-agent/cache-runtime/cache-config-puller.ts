import type { NodeCacheConfig, NodeCacheConfigPush } from '@svc/contracts';
import type { Logger } from '../../../platform/logger.js';
import { POLICY_REFRESH_MS } from '../policy-refresher.js';

/**
 * cache-config.refresh: the node asks the config service for its cache configuration at start and then
 * about as often as the play-agent policy (POLICY_REFRESH_MS), so a change saved while the node was down
 * or unreachable reaches it without a restart. A failed pull keeps the configuration the node has.
 */
export class CacheConfigPuller {
  private timer: NodeJS.Timeout | undefined;
  private failing = false;

  constructor(
    private readonly deps: {
      fetch: () => Promise<NodeCacheConfigPush>;
      apply: (config: NodeCacheConfig) => Promise<void>;
      logger: Logger;
      intervalMs?: number;
    },
  ) {}

  start(): void {
    const schedule = () => {
      const base = this.deps.intervalMs ?? POLICY_REFRESH_MS;
      this.timer = setTimeout(() => void this.pull().finally(schedule), base * (0.9 + Math.random() * 0.2));
      this.timer.unref();
    };
    void this.pull().finally(schedule);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  async pull(): Promise<void> {
    try {
      const { config } = await this.deps.fetch();
      await this.deps.apply(config);
      this.failing = false;
    } catch (error) {
      if (!this.failing) {
        this.deps.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'cache-config.refresh failed; keeping the current cache configuration',
        );
      }
      this.failing = true;
    }
  }
}
