import type { NewAuditRecord } from './audit.repository.js';

/** Keys whose values never enter the audit log, at any depth. */
const SECRET_KEY = /pass(word)?|token|secret|credential|api[-_]?key|authorization/i;
const MAX_DEPTH = 8;

/** A copy of details without secrets (their keys are kept with the value '[redacted]'). */
export function scrubDetails(details: Record<string, unknown>): Record<string, unknown> {
  const scrub = (value: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH) return '[truncated]';
    if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [
          key,
          SECRET_KEY.test(key) ? '[redacted]' : scrub(inner, depth + 1),
        ]),
      );
    }
    return value;
  };
  return scrub(details, 0) as Record<string, unknown>;
}

export interface AuditInput {
  actor: { userId: string; username: string } | null;
  /** Name recorded when there is no signed-in actor (default 'system'). */
  systemActor?: string;
  action: string;
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
    details: scrubDetails(input.details ?? {}),
    clientIp: input.clientIp || null,
  };
}
