import { endpoints } from '@svc/contracts';
import type { AuditClient } from '../../../platform/audit/audit-client.js';
import type { AppServer } from '../../../platform/http/create-server.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { LegacyNodesService } from './legacy-nodes.service.js';

/** Legacy-node report and promotion (standalone image only). See docs/nodes.md "Legacy nodes". */
export function registerLegacyNodesRoutes(
  app: AppServer,
  legacy: LegacyNodesService,
  audit: AuditClient,
): void {
  serve(app, endpoints.config.getLegacyNodesReport, async () => legacy.report());
  serve(app, endpoints.config.promoteLegacyNodes, async (request) => {
    const answer = await legacy.promote(request.body);
    const { promoted, disabled } = answer;
    await audit.record(request, { action: 'node.legacy-promote', details: { promoted, disabled } });
    return answer;
  });
}
