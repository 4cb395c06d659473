import type { PlaybackRoute } from '@svc/contracts';

/** The play-agent's default port (README: 19090), the last resort when no route names an address. */
export const DEFAULT_PLAY_AGENT_PORT = 19090;

/** The parts of `window.location` the fallback address is built from. */
export interface PageLocation {
  protocol: string;
  hostname: string;
}

const HEALTH_RANK: Record<PlaybackRoute['health'], number> = { online: 0, pending: 1, offline: 2 };

/** An address without its trailing slashes, so paths can be appended with one `/`. */
export function trimBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * Which play-agent the browser streams from and reports to.
 *
 * - The first of the account's playback routes (GET /api/config/me/playback-routes) that is online and has
 *   a url: the same address an Emby-compatible client would use, so node access and route quotas apply
 *   exactly as for players. An online play-agent always has one: its external address, else its direct
 *   address at the port it really listens on (for the built-in one, on the host the portal was reached with).
 * - Routes with a url but none online (health lags a probe behind): the first pending one, then the first
 *   offline one; a stream error then tells the user.
 * - On a portal opened over https, https routes come before http ones whatever their health: the browser
 *   blocks an http video on an https page (mixed content).
 * - No route with a url (the routes could not be read, or the account's node access allows none): the page's
 *   own host on the default port 19090 as a last guess. The play-agent still applies the account's node
 *   access, so a refused account sees the stream fail.
 */
export function choosePlayAgentBaseUrl(routes: readonly PlaybackRoute[], location: PageLocation): string {
  const blocked = (url: string) => location.protocol === 'https:' && !url.startsWith('https:');
  const rank = (route: PlaybackRoute & { url: string }) =>
    (blocked(route.url) ? 10 : 0) + HEALTH_RANK[route.health];
  const candidates = routes.filter((route): route is PlaybackRoute & { url: string } => Boolean(route.url));
  // Array.prototype.sort is stable: among equals, the order of the routes answer decides.
  const best = [...candidates].sort((a, b) => rank(a) - rank(b))[0];
  if (best) return trimBaseUrl(best.url);
  return `${location.protocol}//${location.hostname}:${DEFAULT_PLAY_AGENT_PORT}`;
}
