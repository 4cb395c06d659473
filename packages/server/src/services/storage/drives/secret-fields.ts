import { MASKED_SECRET } from '@svc/contracts';

/** The config with each non-empty secret field passed through `transform` (seal, open). */
export function mapSecrets(
  keys: readonly string[],
  config: Record<string, unknown>,
  transform: (value: string) => string,
): Record<string, unknown> {
  const result = { ...config };
  for (const key of keys) {
    const value = result[key];
    if (typeof value === 'string' && value !== '') result[key] = transform(value);
  }
  return result;
}

/** The config with its secrets shown as MASKED_SECRET (answers, audit, logs). */
export const maskSecrets = (keys: readonly string[], config: Record<string, unknown>) =>
  mapSecrets(keys, config, () => MASKED_SECRET);

/** An update's config: secrets sent back masked keep their stored (opened) value. */
export function keepMaskedSecrets(
  keys: readonly string[],
  stored: Record<string, unknown>,
  next: Record<string, unknown>,
): Record<string, unknown> {
  const merged = { ...next };
  for (const key of keys) if (merged[key] === MASKED_SECRET) merged[key] = stored[key];
  return merged;
}
