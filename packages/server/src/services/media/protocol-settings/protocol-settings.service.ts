import {
  DEFAULT_PROTOCOL_SERVER_INFO,
  protocolServerInfoSchema,
  type ProtocolServerInfo,
} from '@svc/contracts';
import type { SystemSettingsRepository } from '../../shared/system-settings.repository.js';

const KEY = 'protocol.proto_a.server-info';

/**
 * The protocol server information players see (serverName, productName). Read by play-agents on each
 * request of /System/Info/Public through a short cache, so a change shows at once.
 */
export class ProtocolSettingsService {
  constructor(
    private readonly settings: Pick<SystemSettingsRepository, 'get' | 'set'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(): Promise<ProtocolServerInfo> {
    const stored = protocolServerInfoSchema.safeParse(await this.settings.get(KEY));
    return stored.success ? stored.data : DEFAULT_PROTOCOL_SERVER_INFO;
  }

  async update(info: ProtocolServerInfo): Promise<ProtocolServerInfo> {
    const value = { serverName: info.serverName.trim(), productName: info.productName.trim() };
    await this.settings.set(KEY, value, this.now());
    return value;
  }
}
