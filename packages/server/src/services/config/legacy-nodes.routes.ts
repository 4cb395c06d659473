import {
  legacyNodesReportSchema,
  promoteLegacyNodesRequestSchema,
  promoteLegacyNodesResponseSchema,
} from '@svc/contracts';
import type { AuditClient } from '../../platform/audit/audit-client.js';
import type { AppServer } from '../../platform/http/create-server.js';
import type { GatewayRule } from '../../platform/http/route-auth.js';
import type { LegacyNodesService } from './legacy-nodes.service.js';

const NODE_ADMIN: GatewayRule = { kind: 'admin', anyOf: ['node'] };

/** Legacy-node report and promotion (standalone image only). See docs/nodes.md "Legacy nodes". */
export function registerLegacyNodesRoutes(
  app: AppServer,
  legacy: LegacyNodesService,
  audit: AuditClient,
): void {
  const auth = { auth: { gateway: NODE_ADMIN } };
  app.get(
    '/api/config/deployment/legacy-nodes/report',
    { config: auth, schema: { response: { 200: legacyNodesReportSchema } } },
    async () => legacy.report(),
  );
  app.post(
    '/api/config/deployment/legacy-nodes/promote',
    {
      config: auth,
      schema: { body: promoteLegacyNodesRequestSchema, response: { 200: promoteLegacyNodesResponseSchema } },
    },
    async (request) => {
      const answer = await legacy.promote(request.body);
      const { promoted, disabled } = answer;
      await audit.record(request, { action: 'node.legacy-promote', details: { promoted, disabled } });
      return answer;
    },
  );
}
