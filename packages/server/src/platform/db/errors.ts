/** A database could not be opened, created, locked or used. The message is one line and holds no secret. */
export class DatabaseError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DatabaseError';
  }
}

/** The database cannot serve right now (busy beyond waiting, unreachable): a later attempt may work. */
export class DatabaseUnavailableError extends DatabaseError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/** A migration list is invalid, does not match the database, or a migration failed. */
export class MigrationError extends DatabaseError {
  readonly migration: string;

  constructor(migration: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MigrationError';
    this.migration = migration;
  }
}

/** Collapses a message to one line. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** The useful one-line text of any thrown value (AggregateError from dual-stack connects has an empty message). */
export function describeError(err: unknown): string {
  if (err instanceof AggregateError && !err.message) {
    const inner = err.errors.map((e) => describeError(e)).filter((m) => m.length > 0);
    return oneLine([...new Set(inner)].join('; ')) || 'unknown error';
  }
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return oneLine(err.message) || (typeof code === 'string' ? code : err.name);
  }
  return oneLine(String(err));
}

/** The SQLSTATE (or Node error code) of an error thrown by pg or PGlite, if any. */
export function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * SQLSTATEs of a server that cannot serve right now: admin_shutdown, crash_shutdown, cannot_connect_now
 * (starting up or shutting down) and too_many_connections. Class 08 (connection exception) is matched whole.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** Socket errors of a connection that could not be made or was cut. */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** What pg and pg-pool say when the server went away or could not be reached in time (they set no code). */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/** What a passing fault failed to reach: the database, or some connection (to the database or a service). */
export type UnavailableCause = 'database' | 'connection';

/**
 * Whether an error is a passing fault rather than a wrong query: the database server is unreachable,
 * shutting down, starting or full ('database'), or a socket was refused or cut ('connection': pg's own
 * connects are tagged as 'database' by the pool, other callers' are not). Looks through `cause` and
 * AggregateError; undefined for every other error.
 */
export function unavailableCause(err: unknown, depth = 0): UnavailableCause | undefined {
  if (depth > 5 || err === null || typeof err !== 'object') return undefined;
  if (err instanceof DatabaseUnavailableError) return 'database';
  const code = errorCode(err);
  if (code !== undefined && (UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return 'database';
  if (err instanceof Error && UNAVAILABLE_MESSAGE.test(err.message)) return 'database';
  const inner =
    err instanceof AggregateError
      ? err.errors.map((one) => unavailableCause(one, depth + 1)).find((cause) => cause !== undefined)
      : undefined;
  const underlying = inner ?? unavailableCause((err as { cause?: unknown }).cause, depth + 1);
  if (underlying) return underlying;
  return code !== undefined && UNAVAILABLE_SOCKET_CODES.has(code) ? 'connection' : undefined;
}

/** True when the database cannot serve right now (see unavailableCause), so a later attempt may work. */
export function isDatabaseUnavailable(err: unknown): boolean {
  return unavailableCause(err) === 'database';
}
