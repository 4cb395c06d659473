import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { PlayAgentPolicyService } from './play-agent-policy.service.js';

export function registerPlayAgentPolicyRoutes(
  app: AppServer,
  policy: PlayAgentPolicyService,
  audit: AuditClient,
): void {
  // What the play-agents fetch (policy.refresh).
  serve(app, endpoints.config.getInternalPlayAgentPolicy, async () => policy.get());

  // The console (system configuration page).
  serve(app, endpoints.config.getPlayAgentPolicy, async () => policy.get());
  serve(app, endpoints.config.updatePlayAgentPolicy, async (request) =>
    audit.recordChange(
      request,
      { action: 'settings.play-agent-policy', target: { type: 'setting', id: 'play-agent-policy' } },
      () => policy.get(),
      () => policy.update(request.body),
    ),
  );
}
