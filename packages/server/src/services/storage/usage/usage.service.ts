import type { MountUsage, StorageUsageResponse } from '@svc/contracts';
import type { Logger } from '../../../platform/logger.js';
import type { MountsService, OpenMount } from '../mounts.service.js';
import type { ProviderUsage } from '../providers/provider.js';

/** How long one mount may take to report its space before it counts as unavailable. */
const USAGE_TIMEOUT_MS = 5_000;

/** The space of every mount of this node, for the console dashboard (docs/storage.md, "Dashboard"). */
export class StorageUsageService {
  constructor(
    private readonly mounts: MountsService,
    private readonly logger: Logger,
    private readonly timeoutMs = USAGE_TIMEOUT_MS,
  ) {}

  async usage(): Promise<StorageUsageResponse> {
    const mounts = await this.mounts.openAll();
    return { mounts: await Promise.all(mounts.map((mount) => this.of(mount))) };
  }

  /** One mount; a backend that fails or does not answer in time is `unavailable`, never an error. */
  private async of(mount: OpenMount): Promise<MountUsage> {
    const base = { mountId: mount.id, name: mount.name, provider: mount.kind, enabled: true };
    try {
      const usage = await this.withTimeout((signal) => mount.provider.usage(signal));
      return { ...base, status: 'ok', ...usage };
    } catch (error) {
      this.logger.debug({ mountId: mount.id, err: error }, 'mount usage unavailable');
      return { ...base, status: 'unavailable', totalBytes: null, usedBytes: null, freeBytes: null };
    }
  }

  /** Aborts the call after the timeout, and stops waiting for it even if it ignores the signal (statfs). */
  private async withTimeout(run: (signal: AbortSignal) => Promise<ProviderUsage>): Promise<ProviderUsage> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([run(controller.signal), expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}
