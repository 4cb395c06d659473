import { z } from 'zod';
import { errorCodeSchema } from './error-codes.js';

/** The one error body every service answers with (see docs/errors.md). */
export const errorBodySchema = z.object({
  error: z.object({
    /** Stable machine code in SCREAMING_SNAKE_CASE, e.g. VALIDATION_FAILED: one of `errorCodeSchema`. */
    code: errorCodeSchema,
    /** Human-readable English message; clients translate by code. */
    message: z.string(),
    /** Optional structured details, e.g. the failing fields. */
    details: z.unknown().optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
