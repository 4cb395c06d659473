/** A database could not be opened, created, locked or used. The message is one line and holds no secret. */
export class DatabaseError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DatabaseError';
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
