import { redactSecrets } from '../../../platform/audit/audit-details.js';
import type { AuditAction } from '@svc/contracts';
import type { NewAuditRecord } from './audit.repository.js';

export interface AuditInput {
  actor: { userId: string; username: string } | null;
  /** Name recorded when there is no signed-in actor (default 'system'). */
  systemActor?: string;
  action: AuditAction;
  target?: { type: string; id: string };
  details?: Record<string, unknown>;
  clientIp?: string | null;
}

export function auditRecord(input: AuditInput, at: Date): NewAuditRecord {
  return {
    at,
    actorId: input.actor?.userId ?? null,
    actorName: input.actor?.username ?? input.systemActor ?? 'system',
    action: input.action,
    targetType: input.target?.type ?? null,
    targetId: input.target?.id ?? null,
    details: redactSecrets(input.details ?? {}),
    clientIp: input.clientIp || null,
  };
}
