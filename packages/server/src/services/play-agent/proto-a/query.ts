import { badRequest } from '../../../platform/http/errors.js';

/** A query value as parsed (text, repeated text) or as a route's schema left it (number, flag, list). */
const textsOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).flatMap((item) =>
    typeof item === 'string'
      ? [item]
      : typeof item === 'number' || typeof item === 'boolean'
        ? [String(item)]
        : [],
  );

/**
 * Client-protocol query parameters: names are case-insensitive (Emby clients send `ParentId`, Jellyfin
 * clients `parentId`), lists come comma-separated, repeated, or both. Routes read their query through
 * this after their schema (declarations.ts) validated it.
 */
export class ProtocolQuery {
  private readonly values = new Map<string, string[]>();

  constructor(raw: unknown) {
    if (raw && typeof raw === 'object') {
      for (const [name, value] of Object.entries(raw)) {
        if (value === undefined) continue;
        const key = name.toLowerCase();
        const list = this.values.get(key) ?? [];
        list.push(...textsOf(value));
        this.values.set(key, list);
      }
    }
  }

  has(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }

  /** The first non-empty value. */
  string(name: string): string | undefined {
    const found = this.values.get(name.toLowerCase())?.find((value) => value.length > 0);
    return found;
  }

  list(name: string): string[] {
    return (this.values.get(name.toLowerCase()) ?? [])
      .flatMap((value) => value.split(','))
      .map((value) => value.trim())
      .filter((value) => value.length > 0);
  }

  boolean(name: string): boolean | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (/^(true|1|yes)$/i.test(value)) return true;
    if (/^(false|0|no)$/i.test(value)) return false;
    throw badRequest(`query parameter ${name} must be true or false`);
  }

  integer(name: string, bounds: { min?: number; max?: number } = {}): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!/^-?\d{1,15}$/.test(value)) throw badRequest(`query parameter ${name} must be a whole number`);
    const number = Number(value);
    if (bounds.min !== undefined && number < bounds.min) return bounds.min;
    if (bounds.max !== undefined && number > bounds.max) return bounds.max;
    return number;
  }
}
