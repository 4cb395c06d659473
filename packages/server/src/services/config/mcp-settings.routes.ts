import { mcpSettingsSchema, updateMcpSettingsRequestSchema } from '@svc/contracts';
import type { AuditClient } from '../../platform/audit/audit-client.js';
import type { AppServer } from '../../platform/http/create-server.js';
import type { GatewayRule } from '../../platform/http/route-auth.js';
import type { McpSettingsService } from './mcp-settings.service.js';

const SETTINGS_ADMIN: GatewayRule = { kind: 'admin', anyOf: ['settings'] };

export function registerMcpSettingsRoutes(app: AppServer, mcp: McpSettingsService, audit: AuditClient): void {
  // The gateway reads the switch before answering /mcp.
  app.get(
    '/api/config/internal/system-settings/mcp',
    { config: { auth: { service: true } }, schema: { response: { 200: mcpSettingsSchema } } },
    async () => mcp.get(),
  );
  app.get(
    '/api/config/system-settings/mcp',
    { config: { auth: { gateway: SETTINGS_ADMIN } }, schema: { response: { 200: mcpSettingsSchema } } },
    async () => mcp.get(),
  );
  app.put(
    '/api/config/system-settings/mcp',
    {
      config: { auth: { gateway: SETTINGS_ADMIN } },
      schema: { body: updateMcpSettingsRequestSchema, response: { 200: mcpSettingsSchema } },
    },
    async (request) =>
      audit.recordChange(
        request,
        { action: 'settings.mcp', target: { type: 'setting', id: 'mcp' } },
        () => mcp.get(),
        () => mcp.set(request.body.enabled),
      ),
  );
}
