import { upstreamFileSource, type MediaSource } from '../../src/services/play-agent/stream/sources.js';
import type { VfsCache, WrapOptions } from '../../src/services/play-agent/vfs/vfs-cache.js';

/**
 * The source under test: one file of the WebDAV mount as the play-agent reads it, behind `cache` when one
 * is given (`extra` adds wrap options, e.g. `onPlan`). The one place to switch to the wired play-agent.
 */
export function mediaSource(
  origin: { storageUrl: string; serviceToken: string; mount: { id: string } },
  cache: VfsCache | null,
  file: string,
  extra: Partial<WrapOptions> = {},
): MediaSource {
  return upstreamFileSource({
    baseUrl: origin.storageUrl,
    mountId: origin.mount.id,
    path: file,
    serviceToken: origin.serviceToken,
    cache: cache && { wrap: (upstream, id) => cache.wrap(upstream, { ...extra, ...id }) },
  });
}
