/** The bounds the console falls back to when the backend names none (or unusable ones). */
export const FALLBACK_RETENTION_MIN = 7;
export const FALLBACK_RETENTION_MAX = 3650;

const usable = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0;

/** The retention input's bounds: the backend's min and max, else 7–3650 days. */
export function retentionBounds(answer: { min?: unknown; max?: unknown }): { min: number; max: number } {
  const min = usable(answer.min) ? answer.min : FALLBACK_RETENTION_MIN;
  const max = usable(answer.max) ? answer.max : FALLBACK_RETENTION_MAX;
  return min <= max ? { min, max } : { min: FALLBACK_RETENTION_MIN, max: FALLBACK_RETENTION_MAX };
}
