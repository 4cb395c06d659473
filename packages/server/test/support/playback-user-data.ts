import type { PlaybackUserData } from '@svc/contracts';

/** A user's data on an item they never touched, with the fields a test cares about changed. */
export function playbackUserData(overrides: Partial<PlaybackUserData> = {}): PlaybackUserData {
  return {
    played: false,
    playCount: 0,
    isFavorite: false,
    playbackPositionTicks: 0,
    lastPlayedAt: null,
    unplayedItemCount: null,
    ...overrides,
  };
}
