/** A value as canonical text: object keys sorted, and NaN kept apart from null (a half-typed number). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner === 'number' && Number.isNaN(inner)) return 'NaN';
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
      return Object.fromEntries(
        Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    }
    return inner;
  });
}

/**
 * Whether two setting bodies are the same, compared as the API would receive them (so a card counts as
 * unchanged when its edits come back to the saved value, whatever the form's row keys or key order).
 */
export function sameSetting(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}
