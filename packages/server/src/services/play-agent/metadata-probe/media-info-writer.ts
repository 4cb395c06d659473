import { playbackMediaInfoStoredSchema, type MediaInfo } from '@svc/contracts';
import type { ServiceClient } from '../../../platform/http/service-client.js';
import type { ProbeJob } from './probe-queue.js';

/** Writes probed metadata back to the media service, which keeps it while the item still has none. */
export async function storeMediaInfo(
  media: ServiceClient,
  job: ProbeJob,
  mediaInfo: MediaInfo,
): Promise<boolean> {
  const answer = await media.json(
    'PUT',
    `/api/media/internal/playback/items/${encodeURIComponent(job.itemId)}/media-info`,
    playbackMediaInfoStoredSchema,
    { body: { size: job.file.size ?? 0, mediaInfo } },
  );
  return answer.stored;
}
