/** Monospace for a template's text only, not for the field's label and description. */
export const MONOSPACE_INPUT = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } } as const;
