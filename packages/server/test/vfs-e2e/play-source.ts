import { upstreamFileSource, type MediaSource } from '../../src/services/play-agent/stream/sources.js';
import type { VfsCache, WrapOptions } from '../../src/services/play-agent/vfs/vfs-cache.js';

/**
 * The source under test: one file of the WebDAV mount as the play-agent reads it, behind `cache` when one
 * is given (`extra` adds wrap options, e.g. `onPlan`). The one place to switch to the wired play-agent.
 * `known` is the size and mtime the library holds (the play-agent then asks the origin nothing before
 * reading); without it each open first asks the storage node (a HEAD, a PROPFIND over the link).
 */
export function mediaSource(
  origin: { storageUrl: string; serviceToken: string; mount: { id: string } },
  cache: VfsCache | null,
  file: string,
  extra: Partial<WrapOptions> = {},
  known?: { size: number; mtime: number },
): MediaSource {
  return upstreamFileSource({
    baseUrl: origin.storageUrl,
    mountId: origin.mount.id,
    path: file,
    serviceToken: origin.serviceToken,
    ...(known ? { known } : {}),
    cache: cache && { wrap: (upstream, id) => cache.wrap(upstream, { ...extra, ...id }) },
  });
}
