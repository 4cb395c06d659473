import type { ScanStatus } from '@svc/contracts';
import type { AuditClient, AuditSource } from '../../../platform/audit/audit-client.js';

/** The audit log's target of a library. */
export const libraryTarget = (id: string) => ({ type: 'library', id });

/** Records that a scan of a library was queued (by hand, or as a new library's first scan). */
export const recordScanStart = (audit: AuditClient, request: AuditSource, scan: ScanStatus) =>
  audit.record(request, {
    action: 'library.scan-start',
    target: libraryTarget(scan.libraryId),
    details: { mode: scan.mode, scanId: scan.id },
  });
