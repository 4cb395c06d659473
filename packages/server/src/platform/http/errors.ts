import type { ErrorBody, ErrorCode } from '@svc/contracts';

/** An error that maps to an HTTP status and a stable machine code in the common error body. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

export const notFound = (what: string) => new AppError(404, 'NOT_FOUND', `${what} not found`);
export const unauthorized = (message = 'authentication required') =>
  new AppError(401, 'UNAUTHORIZED', message);
export const forbidden = (message = 'not allowed') => new AppError(403, 'FORBIDDEN', message);
/**
 * A field only role admin may set or keep (a private-network target, a host that receives a stored secret);
 * `details` names it like a validation error does.
 */
export const adminOnlySetting = (field: string, message: string) =>
  new AppError(403, 'ADMIN_ONLY_SETTING', message, [{ path: `/${field}`, message }]);
export const badRequest = (message: string, details?: unknown) =>
  new AppError(400, 'VALIDATION_FAILED', message, details);

/** Seconds a client is asked to wait (Retry-After) before trying a 503 SERVICE_UNAVAILABLE again. */
export const RETRY_AFTER_SECONDS = 5;

/** 503 SERVICE_UNAVAILABLE: a passing fault (the database is unreachable); the answer carries Retry-After. */
export const serviceUnavailable = (message: string) => new AppError(503, 'SERVICE_UNAVAILABLE', message);

export function errorBody(code: ErrorCode, message: string, details?: unknown): ErrorBody {
  return { error: { code, message, ...(details === undefined ? {} : { details }) } };
}
