import type { RecordAuditRequest } from '@svc/contracts';

/**
 * Where licence changes are recorded: the user service's audit log, through the shared AuditClient's
 * deliver() (platform/audit). Licence records wait in an outbox until it succeeds.
 */
export interface AuditRecorder {
  record(entry: RecordAuditRequest): Promise<void>;
}
