import { AUDIT_REDACTED } from '@svc/contracts';
import { redactUrl } from '../logger.js';

/** Keys whose values never enter the audit log, at any depth. */
const SECRET_KEY = /pass(word)?|token|secret|credential|api[-_]?key|authorization|cookie/i;
/** Fields every saved record changes by itself: not a change the administrator made. */
const NOT_A_CHANGE = new Set(['updatedAt']);
const MAX_DEPTH = 8;

type Plain = Record<string, unknown>;

const isPlain = (value: unknown): value is Plain =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A header or query item (`{ key, value, sensitive }`, as webhook endpoints keep them) whose value is a
 * secret: marked sensitive, or named like one (Authorization, X-Api-Key, token…).
 */
const isSecretItem = (value: Plain): boolean =>
  typeof value.key === 'string' &&
  'value' in value &&
  (value.sensitive === true || SECRET_KEY.test(value.key));

/** A URL's password and its secret query values (`?token=`, `?api_key=`…) masked. */
function redactString(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  let masked = value;
  try {
    const url = new URL(value);
    if (url.password) masked = masked.replace(`:${url.password}@`, `:${AUDIT_REDACTED}@`);
  } catch {
    // Not a parseable URL (a template): the query rule below still applies.
  }
  return redactUrl(masked);
}

/**
 * A copy of a value safe for the audit log: values of secret keys, of sensitive header and query items and
 * of URL passwords and secret query parameters become '[redacted]' (their keys are kept).
 */
export function redactSecrets<T>(value: T): T {
  const scrub = (inner: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH) return '[truncated]';
    if (typeof inner === 'string') return redactString(inner);
    if (Array.isArray(inner)) return inner.map((item) => scrub(item, depth + 1));
    if (!isPlain(inner)) return inner;
    const secretItem = isSecretItem(inner);
    return Object.fromEntries(
      Object.entries(inner).map(([key, field]) => [
        key,
        SECRET_KEY.test(key) || (secretItem && key === 'value') ? AUDIT_REDACTED : scrub(field, depth + 1),
      ]),
    );
  };
  return scrub(value, 0) as T;
}

/** The fields of an object an administrator sets (not its live state), for before/after. */
export function settableFields<T extends object, K extends keyof T>(
  value: T,
  keys: readonly K[],
): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}

/** Leaves of an object by dotted path (`config.url`); arrays are one leaf each. */
function flatten(value: Plain, prefix = '', into = new Map<string, unknown>()): Map<string, unknown> {
  for (const [key, field] of Object.entries(value)) {
    if (NOT_A_CHANGE.has(key)) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    if (isPlain(field) && Object.keys(field).length > 0) flatten(field, path, into);
    else into.set(path, field);
  }
  return into;
}

export type AuditChanges = {
  /** The changed fields' values before (null: the object did not exist). */
  before: Plain | null;
  /** The changed fields' values after (null: the object is gone). */
  after: Plain | null;
};

/**
 * The fields that differ between two states of an object, by dotted path, secrets masked. A creation
 * (no before) lists every field after; a deletion every field before. A secret that changed is listed
 * with both sides '[redacted]', so the log shows that it changed but never what it is.
 */
export function auditChanges(
  before: object | null | undefined,
  after: object | null | undefined,
): AuditChanges {
  const old = before ? flatten(redactForDiff(before)) : null;
  const now = after ? flatten(redactForDiff(after)) : null;
  if (!before || !after || !old || !now) {
    return { before: old && Object.fromEntries(old), after: now && Object.fromEntries(now) };
  }
  const changed = [...new Set([...old.keys(), ...now.keys()])].filter(
    (path) => JSON.stringify(valueAt(before, path)) !== JSON.stringify(valueAt(after, path)),
  );
  const pick = (from: Map<string, unknown>) =>
    Object.fromEntries(changed.map((path) => [path, from.has(path) ? from.get(path) : null]));
  return { before: pick(old), after: pick(now) };
}

/** The raw value at a dotted path of flatten (a masked secret compares by its real value). */
function valueAt(value: object, path: string): unknown {
  let inner: unknown = value;
  for (const key of path.split('.')) inner = isPlain(inner) ? inner[key] : undefined;
  return inner;
}

/** The redacted copy with the same paths as the raw value (flatten walks both alike). */
const redactForDiff = (value: object): Plain => redactSecrets(value) as Plain;
