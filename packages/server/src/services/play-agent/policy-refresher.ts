import {
  DEFAULT_PROTOCOL_SERVER_INFO,
  type ClientProtocol,
  type PlayAgentPolicy,
  type ProtocolServerInfo,
} from '@svc/contracts';
import type { Logger } from '../../platform/logger.js';
import type { ResponseCache } from './proto-a/response-cache.js';
import type { ConfigClient } from './upstream/config-client.js';
import type { MediaClient } from './upstream/media-client.js';

/** The task policy.refresh runs about this often (with a little jitter so nodes do not beat together). */
export const POLICY_REFRESH_MS = 30_000;

/** /System/Info/Public reuses the server information this long. */
export const INFO_FRESH_MS = 1_000;

/** Protocol version players see: the Emby server line whose API PROTO_A follows. */
export const PROTOCOL_VERSION = '4.8.10.0';

/**
 * policy.refresh: fetches the play-agent policy (selected protocol, response cache) from the config
 * service and the protocol server information from the media service. Until the first answer the node
 * serves with the defaults; a failed refresh keeps the last answer.
 */
export class PolicyRefresher {
  private policy: PlayAgentPolicy = {
    protocol: 'proto_a',
    responseCache: false,
    metadataCacheTtlSeconds: 300,
    driveARedirect: false,
  };
  private info: ProtocolServerInfo = DEFAULT_PROTOCOL_SERVER_INFO;
  private infoAt = 0;
  private infoLoading: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failing = false;

  constructor(
    private readonly deps: {
      config: Pick<ConfigClient, 'policy'>;
      media: Pick<MediaClient, 'protocolServerInfo'>;
      cache: Pick<ResponseCache, 'configure'>;
      supported: readonly ClientProtocol[];
      logger: Logger;
      intervalMs?: number;
    },
  ) {}

  start(): void {
    const schedule = () => {
      const base = this.deps.intervalMs ?? POLICY_REFRESH_MS;
      this.timer = setTimeout(
        () => void this.refresh().finally(schedule),
        base * (0.9 + Math.random() * 0.2),
      );
      this.timer.unref();
    };
    void this.refresh().finally(schedule);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** True when this node serves the protocol: it is in supported_protocols and selected by the policy. */
  serves(protocol: ClientProtocol): boolean {
    return this.deps.supported.includes(protocol) && this.policy.protocol === protocol;
  }

  serverInfo(): ProtocolServerInfo & { version: string } {
    return { ...this.info, version: PROTOCOL_VERSION };
  }

  /**
   * The server information, asked again when older than INFO_FRESH_MS: a changed server name shows on
   * /System/Info/Public at once rather than at the next policy refresh. Failures keep the last answer.
   */
  async freshServerInfo(): Promise<ProtocolServerInfo & { version: string }> {
    if (Date.now() - this.infoAt > INFO_FRESH_MS) {
      this.infoLoading ??= this.deps.media
        .protocolServerInfo()
        .then((info) => {
          this.info = info;
          this.infoAt = Date.now();
        })
        .catch(() => undefined)
        .finally(() => {
          this.infoLoading = undefined;
        });
      await this.infoLoading;
    }
    return this.serverInfo();
  }

  current(): PlayAgentPolicy {
    return this.policy;
  }

  async refresh(): Promise<void> {
    const [policy, info] = await Promise.allSettled([
      this.deps.config.policy(),
      this.deps.media.protocolServerInfo(),
    ]);
    if (policy.status === 'fulfilled') {
      this.policy = policy.value;
      this.deps.cache.configure(policy.value.responseCache, policy.value.metadataCacheTtlSeconds);
    }
    if (info.status === 'fulfilled') {
      this.info = info.value;
      this.infoAt = Date.now();
    }
    const failed = policy.status === 'rejected' || info.status === 'rejected';
    if (failed && !this.failing) {
      const reason: unknown =
        policy.status === 'rejected' ? policy.reason : info.status === 'rejected' ? info.reason : '';
      this.deps.logger.warn(
        { err: reason instanceof Error ? reason.message : String(reason) },
        'policy.refresh failed; keeping the last policy',
      );
    }
    this.failing = failed;
  }
}
