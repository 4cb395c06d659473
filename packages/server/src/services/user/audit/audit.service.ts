import {
  recordAuditRequestSchema,
  type AuditLogQuery,
  type AuditLogResponse,
  type RecordAuditRequest,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import type { AuditRepository, AuditRow } from './audit.repository.js';
import { auditRecord } from './audit-entry.js';
import type { Port } from '../user-repositories.js';

/** The audit log of administrative changes: read in the console, written by this and other services. */
export class AuditService {
  constructor(
    private readonly audit: Port<AuditRepository>,
    private readonly clock: Clock,
  ) {}

  async list(query: AuditLogQuery): Promise<AuditLogResponse> {
    const { rows, total } = await this.audit.list({
      offset: (query.page - 1) * query.pageSize,
      limit: query.pageSize,
      action: query.action || undefined,
      actorId: query.actorId,
      actorName: query.actor,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
    });
    return { items: rows.map(toRecord), total, page: query.page, pageSize: query.pageSize };
  }

  /** A record sent by another service; secrets in the details are redacted. */
  async recordFromService(input: RecordAuditRequest): Promise<void> {
    const request = recordAuditRequestSchema.parse(input);
    await this.audit.insert(
      auditRecord(
        {
          actor: request.actor,
          action: request.action,
          target:
            request.targetType !== null
              ? { type: request.targetType, id: request.targetId ?? '' }
              : undefined,
          details: request.details,
          clientIp: request.clientIp,
        },
        new Date(this.clock.now()),
      ),
    );
  }
}

function toRecord(row: AuditRow): AuditLogResponse['items'][number] {
  return {
    id: Number(row.id),
    at: new Date(row.at).toISOString(),
    actorId: row.actor_id,
    actorName: row.actor_name,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    details: row.details,
    clientIp: row.client_ip,
  };
}
