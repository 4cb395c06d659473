import { CDN_OPTIMIZE_INTERVAL_SECONDS } from '@svc/contracts';
import type { ScheduledTask } from '../../../platform/tasks/index.js';
import type { CdnPreference } from './cdn-preference.js';

export const CDN_OPTIMIZE_TASK = 'gdrive-cdn.optimize';

/**
 * `gdrive-cdn.optimize` (spec, Events 5): every 60 seconds this play-agent resolves its DRIVE_B CDN hosts
 * over DNS-over-HTTPS, measures the addresses and switches to the best. Per node, not cluster-wide: each
 * play-agent measures its own network path.
 */
export function cdnOptimizeTask(preference: CdnPreference): ScheduledTask {
  return {
    name: CDN_OPTIMIZE_TASK,
    schedule: { everyMs: CDN_OPTIMIZE_INTERVAL_SECONDS * 1000 },
    exclusive: false,
    run: (signal) => preference.optimizeAll(signal),
  };
}
