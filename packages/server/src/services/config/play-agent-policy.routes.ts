import { playAgentPolicySchema, updatePlayAgentPolicyRequestSchema } from '@svc/contracts';
import type { AuditClient } from '../../platform/audit/audit-client.js';
import type { AppServer } from '../../platform/http/create-server.js';
import type { GatewayRule } from '../../platform/http/route-auth.js';
import type { PlayAgentPolicyService } from './play-agent-policy.service.js';

const SETTINGS_ADMIN: GatewayRule = { kind: 'admin', anyOf: ['settings'] };

export function registerPlayAgentPolicyRoutes(
  app: AppServer,
  policy: PlayAgentPolicyService,
  audit: AuditClient,
): void {
  // What the play-agents fetch (policy.refresh).
  app.get(
    '/api/config/internal/play-agent/policy',
    { config: { auth: { service: true } }, schema: { response: { 200: playAgentPolicySchema } } },
    async () => policy.get(),
  );

  // The console (system configuration page).
  app.get(
    '/api/config/play-agent/policy',
    { config: { auth: { gateway: SETTINGS_ADMIN } }, schema: { response: { 200: playAgentPolicySchema } } },
    async () => policy.get(),
  );
  app.put(
    '/api/config/play-agent/policy',
    {
      config: { auth: { gateway: SETTINGS_ADMIN } },
      schema: { body: updatePlayAgentPolicyRequestSchema, response: { 200: playAgentPolicySchema } },
    },
    async (request) =>
      audit.recordChange(
        request,
        { action: 'settings.play-agent-policy', target: { type: 'setting', id: 'play-agent-policy' } },
        () => policy.get(),
        () => policy.update(request.body),
      ),
  );
}
