const UUID = /^([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})$/i;

/** Ids go to clients in the compact 32-hex form Jellyfin and Emby clients use. */
export function toProtocolId(id: string): string {
  return id.replace(/-/g, '').toLowerCase();
}

/** Accepts the compact form and the dashed form; anything else is no id of ours (null). */
export function fromProtocolId(value: string | undefined): string | null {
  if (!value) return null;
  const match = UUID.exec(value.trim());
  if (!match) return null;
  return match.slice(1, 6).join('-').toLowerCase();
}

/** Ticks of the client protocol: 100 ns. */
export const TICKS_PER_SECOND = 10_000_000;
export const secondsToTicks = (seconds: number) => Math.round(seconds * TICKS_PER_SECOND);
