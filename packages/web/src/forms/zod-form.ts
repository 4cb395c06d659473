import type { z } from 'zod';
import { schemaMessage } from './schema-messages.js';

/**
 * A Mantine form `validate` function from the same zod schema the server checks, so a form shows
 * exactly the problems the API would answer with (field path → first message). The messages are the
 * web app's sentences for people (readable-issue.ts, schema-messages.ts), in the interface language.
 */
export function zodValidate<T>(schema: z.ZodType<T>, transform: (values: never) => unknown = (v) => v) {
  return (values: unknown): Record<string, string> => {
    const result = schema.safeParse(transform(values as never));
    if (result.success) return {};
    const errors: Record<string, string> = {};
    for (const issue of result.error.issues) {
      errors[issue.path.join('.')] ??= schemaMessage(issue.message);
    }
    return errors;
  };
}
