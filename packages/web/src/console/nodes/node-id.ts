import { NODE_ID_REGEX } from '@svc/contracts';

/**
 * What the node id field says while the administrator types: empty means the server generates one;
 * otherwise whether it matches the contracts' `node-[A-Za-z0-9_-]{3,60}` and, if not, the first thing wrong.
 */
export type NodeIdHint =
  | { state: 'generated' }
  | { state: 'valid' }
  | { state: 'invalid'; problem: 'prefix' | 'characters' | 'tooShort' | 'tooLong' };

const PREFIX = 'node-';

export function nodeIdHint(input: string): NodeIdHint {
  const value = input.trim();
  if (value === '') return { state: 'generated' };
  if (NODE_ID_REGEX.test(value)) return { state: 'valid' };
  if (!value.startsWith(PREFIX)) return { state: 'invalid', problem: 'prefix' };
  const rest = value.slice(PREFIX.length);
  if (/[^A-Za-z0-9_-]/.test(rest)) return { state: 'invalid', problem: 'characters' };
  return { state: 'invalid', problem: rest.length < 3 ? 'tooShort' : 'tooLong' };
}
