import { endpoints } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import { actorOf } from '../request-actor.js';
import type { DefaultPoliciesService } from './default-policies.service.js';

/** The system configuration page's defaults for new users (docs/settings.md): quotas, node and library access. */
export function registerDefaultPolicyRoutes(app: AppServer, policies: DefaultPoliciesService): void {
  const user = endpoints.user;

  serve(app, user.getDefaultQuotaPolicy, async () => policies.quotaPolicy());
  serve(app, user.setDefaultQuotaPolicy, async (request) =>
    policies.setQuotaPolicy(actorOf(request), request.body),
  );
  serve(app, user.getDefaultNodeAccessPolicy, async () => policies.nodeAccessPolicy());
  serve(app, user.setDefaultNodeAccessPolicy, async (request) =>
    policies.setNodeAccessPolicy(actorOf(request), request.body),
  );
  serve(app, user.getDefaultLibraryAccessPolicy, async () => policies.libraryAccessPolicy());
  serve(app, user.setDefaultLibraryAccessPolicy, async (request) =>
    policies.setLibraryAccessPolicy(actorOf(request), request.body),
  );
}
