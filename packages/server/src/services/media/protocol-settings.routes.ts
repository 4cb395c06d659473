import { protocolServerInfoSchema, updateProtocolServerInfoSchema } from '@svc/contracts';
import type { AuditClient } from '../../platform/audit/audit-client.js';
import type { AppServer } from '../../platform/http/create-server.js';
import type { ProtocolSettingsService } from './protocol-settings.service.js';

/** Protocol server information: edited in the console (`settings`), read by play-agents (service token). */
export function registerProtocolSettingsRoutes(
  app: AppServer,
  settings: ProtocolSettingsService,
  audit: AuditClient,
): void {
  const admin = { auth: { gateway: { kind: 'admin', anyOf: ['settings'] } } } as const;
  const response = { 200: protocolServerInfoSchema };
  app.get('/api/media/protocol/proto_a/settings', { config: admin, schema: { response } }, async () =>
    settings.get(),
  );
  app.put(
    '/api/media/protocol/proto_a/settings',
    { config: admin, schema: { body: updateProtocolServerInfoSchema, response } },
    async (request) =>
      audit.recordChange(
        request,
        { action: 'settings.protocol', target: { type: 'setting', id: 'protocol.proto_a' } },
        () => settings.get(),
        () => settings.update(request.body),
      ),
  );
  app.get(
    '/api/media/internal/protocol/proto_a/settings',
    { config: { auth: { service: true } }, schema: { response } },
    async () => settings.get(),
  );
}
