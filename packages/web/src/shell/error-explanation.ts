import { ApiError } from '../api/client.js';

/** One problem a refusal names on a field: its form path ("config.root") and the server's message. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** What a refusal says to a person: a headline, the server's own explanation, and field problems. */
export interface ErrorExplanation {
  /** The code's sentence in the interface language, else the server's message. */
  headline: string;
  /** The server's specific (English) message under a translated headline, when it says more. */
  explanation?: string;
  fields: FieldProblem[];
}

/** "/config/root" (JSON pointer, as the API writes it), ["config", "root"] or "config.root" → "config.root". */
function fieldPath(path: unknown): string {
  if (Array.isArray(path)) return path.map(String).join('.');
  if (typeof path !== 'string') return '';
  return path.startsWith('/') ? path.split('/').filter(Boolean).join('.') : path;
}

/** The fields an error body's `details` names (a list of `{ path, message }`, docs/errors.md). */
export function fieldProblems(error: unknown): FieldProblem[] {
  if (!(error instanceof ApiError) || !Array.isArray(error.details)) return [];
  return (error.details as { path?: unknown; message?: unknown }[])
    .filter((issue) => typeof issue?.message === 'string')
    .map((issue) => ({ field: fieldPath(issue.path), message: String(issue.message) }));
}

/**
 * An error as the person should read it. `translate` gives the interface-language sentence of an API
 * code, or undefined for a code the app does not know (then the server's message is the headline).
 * A body that lists fields explains itself through them; any other server message that differs from
 * the headline is shown as the explanation (it names the folder, the node, the limit…).
 */
export function explainError(
  error: unknown,
  translate: (code: string) => string | undefined,
): ErrorExplanation {
  if (!(error instanceof ApiError)) {
    return { headline: error instanceof Error ? error.message : String(error), fields: [] };
  }
  const fields = fieldProblems(error);
  const headline = translate(error.code) ?? error.message;
  const message = error.message.trim();
  const explains = fields.length === 0 && message !== '' && message !== headline;
  return { headline, ...(explains ? { explanation: message } : {}), fields };
}

/** "field: message", or the message alone for a problem of the whole request. */
export const fieldProblemLine = (problem: FieldProblem) =>
  problem.field ? `${problem.field}: ${problem.message}` : problem.message;
