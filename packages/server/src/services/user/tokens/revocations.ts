import { AUTH_REVOKED_CHANNEL, type AuthRevokedMessage } from '@svc/contracts';
import type { Cache } from '../../../platform/cache/index.js';
import type { Logger } from '../../../platform/logger.js';

/**
 * Announces on `auth:revoked` that tokens no longer hold (or that what introspection answers for a user
 * changed), so gateways evict their introspection cache at once. Best effort, like all pub/sub.
 */
export class RevocationNotifier {
  constructor(
    private readonly cache: Pick<Cache, 'publish'>,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  async tokens(tokenIds: string[]): Promise<void> {
    if (tokenIds.length > 0) await this.send({ tokenIds });
  }

  async user(userId: string): Promise<void> {
    await this.send({ userId });
  }

  private async send(message: AuthRevokedMessage): Promise<void> {
    try {
      await this.cache.publish(AUTH_REVOKED_CHANNEL, JSON.stringify(message));
    } catch (err) {
      this.logger.warn({ err }, 'could not publish a token revocation');
    }
  }
}
