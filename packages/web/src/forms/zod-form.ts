import type { z } from 'zod';
import { i18next } from '../i18n/i18n.js';

/**
 * A Mantine form `validate` function from the same zod schema the server checks, so a form shows
 * exactly the problems the API would answer with (field path → first message).
 */
export function zodValidate<T>(schema: z.ZodType<T>, transform: (values: never) => unknown = (v) => v) {
  return (values: unknown): Record<string, string> => {
    const result = schema.safeParse(transform(values as never));
    if (result.success) return {};
    const errors: Record<string, string> = {};
    for (const issue of result.error.issues) {
      const key = issue.path.join('.');
      errors[key] ??= isEmptyRequired(issue, values) ? i18next.t('validation.required') : issue.message;
    }
    return errors;
  };
}

/** An empty text where at least one character is needed reads better as "Required". */
function isEmptyRequired(issue: z.core.$ZodIssue, values: unknown): boolean {
  if (issue.code !== 'too_small' || issue.origin !== 'string' || Number(issue.minimum) !== 1) return false;
  let value: unknown = values;
  for (const segment of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[segment];
  return value === '' || value === undefined;
}
