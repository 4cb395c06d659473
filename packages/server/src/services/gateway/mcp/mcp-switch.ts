import { request } from 'undici';
import { mcpSettingsSchema } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';

/** How long the gateway reuses the switch: with the fetch itself, a change shows within about 3 s. */
export const MCP_SWITCH_TTL_MS = 2_000;

/**
 * The MCP switch as the gateway sees it, read from the config service at most every 2 s. When the config
 * service cannot answer, the last known value stays; before any answer the endpoint stays closed.
 */
export class McpSwitch {
  private value: boolean | undefined;
  private readAt = 0;
  private reading: Promise<boolean> | undefined;

  constructor(
    private readonly deps: {
      configBaseUrl: string;
      serviceToken: string;
      clock: Clock;
      logger: Logger;
      ttlMs?: number;
    },
  ) {}

  async enabled(): Promise<boolean> {
    const fresh = this.deps.clock.now() - this.readAt < (this.deps.ttlMs ?? MCP_SWITCH_TTL_MS);
    if (this.value !== undefined && fresh) return this.value;
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<boolean> {
    try {
      const response = await request(`${this.deps.configBaseUrl}/api/config/internal/system-settings/mcp`, {
        headers: { [SERVICE_TOKEN_HEADER]: this.deps.serviceToken },
        headersTimeout: 2_000,
        bodyTimeout: 2_000,
      });
      if (response.statusCode !== 200) {
        await response.body.dump();
        throw new Error(`config service answered ${response.statusCode}`);
      }
      this.value = mcpSettingsSchema.parse(await response.body.json()).enabled;
      this.readAt = this.deps.clock.now();
    } catch (error) {
      this.deps.logger.warn(
        { err: (error as Error).message },
        'MCP switch not readable; keeping the last value',
      );
    }
    return this.value ?? false;
  }
}
