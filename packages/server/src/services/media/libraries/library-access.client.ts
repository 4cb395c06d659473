import { playbackPolicyResponseSchema } from '@svc/contracts';
import type { RegistryClient } from '../../../platform/registry-client.js';
import { ServiceClient } from '../../../platform/http/service-client.js';
import type { LibraryAccessSource } from './library-access.js';

/**
 * A user's library access in effect, from the user service's playback policy (the answer the play-agents
 * read too, so both see the same rule: administrators every library). The user service is found through
 * the registry; a 404 stays a 404, anything else failing is 503.
 */
export function userServiceLibraryAccess(options: {
  registry: Pick<RegistryClient, 'lookup'>;
  serviceToken: string;
}): LibraryAccessSource {
  const users = new ServiceClient({ service: 'svc-user', timeoutMs: 5_000, ...options });
  return async (userId) => {
    const policy = await users.json(
      'GET',
      `/api/auth/internal/users/${encodeURIComponent(userId)}/playback-policy`,
      playbackPolicyResponseSchema,
    );
    return policy.libraryAccess;
  };
}
