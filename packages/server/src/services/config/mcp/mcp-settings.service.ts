import type { McpSettings } from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { SystemSettingsRepository } from '../../shared/system-settings.repository.js';

/** system_settings key of the MCP switch. */
export const MCP_SETTINGS_KEY = 'mcp.settings';

/**
 * The MCP switch. Off by default: an endpoint through which assistants act with an account's rights is
 * something an administrator turns on knowingly.
 */
export class McpSettingsService {
  constructor(
    private readonly settings: Pick<SystemSettingsRepository, 'get' | 'set'>,
    private readonly clock: Clock,
  ) {}

  async get(): Promise<McpSettings> {
    const stored = (await this.settings.get(MCP_SETTINGS_KEY)) as Partial<McpSettings> | undefined;
    return {
      enabled: stored?.enabled === true,
      updatedAt: typeof stored?.updatedAt === 'string' ? stored.updatedAt : null,
    };
  }

  async set(enabled: boolean): Promise<McpSettings> {
    const now = new Date(this.clock.now());
    const next: McpSettings = { enabled, updatedAt: now.toISOString() };
    await this.settings.set(MCP_SETTINGS_KEY, next, now);
    return next;
  }
}
