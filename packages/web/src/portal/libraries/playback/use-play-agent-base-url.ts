import { endpoints } from '@svc/contracts';
import { choosePlayAgentBaseUrl } from './play-agent-base.js';
import { useEndpointQuery } from '../../../api/endpoint-hooks.js';

/**
 * The play-agent address the web player uses, from the account's playback routes (see
 * choosePlayAgentBaseUrl: an online route's address, else a guess at port 19090 of the portal's own host). Null while
 * the routes load; when they cannot be read the fallback address is used, so playback is not blocked by a
 * route listing problem (the play-agent still checks access itself).
 */
export function usePlayAgentBaseUrl(): string | null {
  const routes = useEndpointQuery(endpoints.config.getMyPlaybackRoutes, {});
  if (routes.isPending) return null;
  return choosePlayAgentBaseUrl(routes.data?.routes ?? [], window.location);
}
