import type { ActivityMediaType, PlaybackDevice } from '@svc/contracts';

/** Who is playing, from where: the parts of an activity event that come from the request. */
export interface PlayContext {
  userId: string;
  tokenId: string;
  device: PlaybackDevice;
  clientIp: string;
  userAgent: string;
  endpointId: string | null;
}

/** The item played, as the activity log records it. */
export interface PlayedMedia {
  id: string;
  type: ActivityMediaType;
  name: string;
  seriesName: string | null;
  runtimeSec: number | null;
}
