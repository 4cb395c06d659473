import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { McpSettingsService } from './mcp-settings.service.js';

export function registerMcpSettingsRoutes(app: AppServer, mcp: McpSettingsService, audit: AuditClient): void {
  // The gateway reads the switch before answering /mcp.
  serve(app, endpoints.config.getInternalMcpSettings, async () => mcp.get());
  serve(app, endpoints.config.getMcpSettings, async () => mcp.get());
  serve(app, endpoints.config.updateMcpSettings, async (request) =>
    audit.recordChange(
      request,
      { action: 'settings.mcp', target: { type: 'setting', id: 'mcp' } },
      () => mcp.get(),
      () => mcp.set(request.body.enabled),
    ),
  );
}
