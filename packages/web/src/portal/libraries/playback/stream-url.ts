import { trimBaseUrl } from './play-agent-base.js';

/**
 * The direct-play address of an item on a play-agent, for a plain `<video src>`: the browser cannot send
 * headers with it, so the portal's access token travels as `api_key` (docs/play-agent.md, Authorization);
 * `static=true` asks for the file as it is (the play-agent never transcodes).
 */
export function buildStreamUrl(baseUrl: string, playbackItemId: string, accessToken: string): string {
  const query = new URLSearchParams({ static: 'true', api_key: accessToken });
  return `${trimBaseUrl(baseUrl)}/Videos/${encodeURIComponent(playbackItemId)}/stream?${query.toString()}`;
}

/** The id in the compact 32-hex form the client protocol uses (its media source id is the item id). */
export function compactProtocolId(id: string): string {
  return id.replace(/-/g, '').toLowerCase();
}

/** The file as a download (`Content-Disposition: attachment`), for files a browser cannot play. */
export function buildDownloadUrl(baseUrl: string, playbackItemId: string, accessToken: string): string {
  const query = new URLSearchParams({ api_key: accessToken });
  return `${trimBaseUrl(baseUrl)}/Items/${encodeURIComponent(playbackItemId)}/Download?${query.toString()}`;
}
