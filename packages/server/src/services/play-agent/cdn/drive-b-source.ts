import type { MountKinds } from '../redirect/mount-kinds.js';
import type { MediaSource } from '../stream/sources.js';
import { cdnLinkSource } from './cdn-link-source.js';
import type { CdnPreference } from './cdn-preference.js';
import type { DriveBLinks, DriveFileRef } from './drive-b-links.js';

/** What the streamer needs to read DRIVE_B files from the CDN itself. */
export interface DriveBReads {
  preference: CdnPreference;
  links: DriveBLinks;
  kinds: Pick<MountKinds, 'kindOf'>;
}

/**
 * The CDN source of a file when it lies on a DRIVE_B mount and the node's CDN preference is on; null
 * otherwise (the file is then read through the storage node's file route).
 */
export async function driveBSource(
  reads: DriveBReads,
  file: DriveFileRef,
  known: { size: number; mtime: Date | null },
): Promise<MediaSource | null> {
  if (!reads.preference.enabled) return null;
  if ((await reads.kinds.kindOf(file.baseUrl, file.mountId)) !== 'drive_b') return null;
  return cdnLinkSource({
    facts: { size: known.size, mtime: known.mtime },
    link: (fresh) => reads.links.get(file, { fresh }),
    preference: reads.preference,
  });
}
