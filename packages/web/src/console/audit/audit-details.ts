import type { AuditRecord } from '@svc/contracts';

/** One changed field: its dotted path and its value before and after (null: not there). */
export interface ChangedField {
  field: string;
  before: string | null;
  after: string | null;
}

/** What an entry's details hold, ready to show: the changed fields and the other facts. */
export interface ReadableDetails {
  /** False when the entry records no before/after (a test send, a sign-in failure). */
  hasChanges: boolean;
  changes: ChangedField[];
  facts: { field: string; value: string }[];
}

const isPlain = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A value as words: lists joined, header and query items as `key: value`, objects as `key: value` pairs. */
export function readableValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return value.map((item) => readableValue(item) ?? '—').join(isPlain(value[0]) ? '\n' : ', ');
  }
  if (isPlain(value)) {
    if (typeof value.key === 'string' && 'value' in value)
      return `${value.key}: ${readableValue(value.value)}`;
    return Object.entries(value)
      .map(([key, inner]) => `${key}: ${readableValue(inner) ?? '—'}`)
      .join(', ');
  }
  return JSON.stringify(value);
}

/** Nested facts by dotted path (the server already flattens before/after the same way). */
function flatten(value: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(value).flatMap(([key, inner]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return isPlain(inner) && !('key' in inner && 'value' in inner) && Object.keys(inner).length > 0
      ? flatten(inner, path)
      : [[path, inner] as [string, unknown]];
  });
}

/** Splits an entry's details into a before → after table of changed fields and the remaining facts. */
export function readableDetails(details: AuditRecord['details']): ReadableDetails {
  const { before, after, ...others } = details;
  const hasChanges = 'before' in details || 'after' in details;
  const old = isPlain(before) ? Object.fromEntries(flatten(before)) : {};
  const now = isPlain(after) ? Object.fromEntries(flatten(after)) : {};
  const fields = [...new Set([...Object.keys(old), ...Object.keys(now)])];
  return {
    hasChanges,
    changes: fields.map((field) => ({
      field,
      before: readableValue(old[field]),
      after: readableValue(now[field]),
    })),
    facts: flatten(others).map(([field, value]) => ({ field, value: readableValue(value) ?? '—' })),
  };
}
