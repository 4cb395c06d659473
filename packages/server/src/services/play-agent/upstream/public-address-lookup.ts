import type { Logger } from '../../../platform/logger.js';
import type { ConfigClient } from './config-client.js';

/** How often the node asks the config service again (an administrator's change shows within this). */
export const PUBLIC_ADDRESS_REFRESH_MS = 15_000;

/**
 * The public base URL of a play-agent configured without public_base_url: its node record's external
 * address, looked up from the config service (spec: play-agent local settings) in the background and
 * kept, so no request waits for it. Unknown until the first answer; a failed lookup keeps the last one.
 */
export class PublicAddressLookup {
  private address: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failing = false;

  constructor(
    private readonly deps: {
      config: Pick<ConfigClient, 'publicAddress'>;
      nodeId: string;
      logger: Logger;
      intervalMs?: number;
    },
  ) {}

  /** The last address the config service named; undefined while none is set or none was learnt yet. */
  current(): string | undefined {
    return this.address;
  }

  start(): void {
    const schedule = () => {
      this.timer = setTimeout(
        () => void this.refresh().finally(schedule),
        this.deps.intervalMs ?? PUBLIC_ADDRESS_REFRESH_MS,
      );
      this.timer.unref();
    };
    void this.refresh().finally(schedule);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  async refresh(): Promise<void> {
    try {
      const answer = await this.deps.config.publicAddress(this.deps.nodeId);
      this.address = answer.publicBaseUrl?.replace(/\/+$/, '') ?? undefined;
      if (this.failing) this.deps.logger.info('public address lookup works again');
      this.failing = false;
    } catch (error) {
      if (!this.failing) {
        this.deps.logger.warn({ err: (error as Error).message }, 'public address lookup failed');
      }
      this.failing = true;
    }
  }
}
