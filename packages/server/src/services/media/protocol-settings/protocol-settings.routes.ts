import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { ProtocolSettingsService } from './protocol-settings.service.js';

/** Protocol server information: edited in the console (`settings`), read by play-agents (service token). */
export function registerProtocolSettingsRoutes(
  app: AppServer,
  settings: ProtocolSettingsService,
  audit: AuditClient,
): void {
  serve(app, endpoints.media.getProtocolSettings, async () => settings.get());
  serve(app, endpoints.media.updateProtocolSettings, async (request) =>
    audit.recordChange(
      request,
      { action: 'settings.protocol', target: { type: 'setting', id: 'protocol.proto_a' } },
      () => settings.get(),
      () => settings.update(request.body),
    ),
  );
  serve(app, endpoints.media.getProtocolSettingsInternal, async () => settings.get());
}
