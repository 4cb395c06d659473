import type { DiagnosticCheck } from '@svc/contracts';

/** One line of `svc doctor`: a line of the spec's troubleshooting mapping (docs/reverse-proxy.md). */
export type CheckResult = DiagnosticCheck;

export const ok = (id: string, title: string, detail: string): CheckResult => ({
  id,
  title,
  status: 'ok',
  detail,
});
export const problem = (id: string, title: string, detail: string, fix: string): CheckResult => ({
  id,
  title,
  status: 'problem',
  detail,
  fix,
});
export const skipped = (id: string, title: string, detail: string): CheckResult => ({
  id,
  title,
  status: 'skipped',
  detail,
});
