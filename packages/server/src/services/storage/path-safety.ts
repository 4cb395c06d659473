import { randomBytes } from 'node:crypto';
import { AppError } from '../../platform/http/errors.js';

/**
 * Client paths name a place inside a mount: relative to the mount root, '/'-separated, '' for the root.
 * Everything that could step outside the root, or that means different things to different layers
 * (percent-encoding, backslashes, drive letters), is refused before any file system call is made.
 */

/** A path that passed parseMountPath: relative, normalised, '' is the mount root. */
export type MountPath = string & { readonly __mountPath: unique symbol };

export const ROOT_PATH = '' as MountPath;
export const MAX_PATH_BYTES = 4096;
export const MAX_NAME_BYTES = 255;

/** Prefix of every temp file the node writes; listings, walks and scanners skip such names. */
export const TEMP_PREFIX = '.svc-tmp-';

/** True for the node's own temp files (partial uploads and copies). */
export function isTempName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX);
}

/** A fresh, unguessable temp file name. */
export function newTempName(): string {
  return `${TEMP_PREFIX}${randomBytes(12).toString('hex')}`;
}

export function invalidPath(reason: string): AppError {
  return new AppError(400, 'INVALID_PATH', `path is not valid: ${reason}`);
}

export function pathEscapes(): AppError {
  return new AppError(403, 'PATH_ESCAPES_MOUNT', 'path leads outside the mount');
}

const PERCENT_ESCAPE = /%[0-9a-fA-F]{2}/;
const DRIVE_LETTER = /^[A-Za-z]:/;
// C0 control characters and DEL: never part of a name we create or accept.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Checks one segment (already split on '/'); throws INVALID_PATH. */
function checkSegment(segment: string): void {
  if (segment === '.' || segment === '..') throw invalidPath(`'${segment}' segments are not allowed`);
  if (Buffer.byteLength(segment, 'utf8') > MAX_NAME_BYTES) {
    throw invalidPath(`a name is longer than ${MAX_NAME_BYTES} bytes`);
  }
  if (CONTROL.test(segment)) throw invalidPath('control characters are not allowed');
  if (isTempName(segment)) throw invalidPath(`names starting with ${TEMP_PREFIX} are reserved`);
  // Percent-escapes are literal characters of the name here (the URL was decoded once already), but a
  // name that decodes, once or repeatedly, to a separator, a dot segment or NUL is an attack on a layer
  // that decodes again (proxies, WebDAV servers), so it is refused. Undecodable escapes are refused too.
  let current = segment;
  for (let round = 0; round < 4 && PERCENT_ESCAPE.test(current); round++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      throw invalidPath('malformed percent-encoding');
    }
    if (decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded) || CONTROL.test(decoded)) {
      throw invalidPath('percent-encoded separators or dot segments are not allowed');
    }
    if (decoded === current) break;
    current = decoded;
  }
}

export interface ParseOptions {
  /**
   * Accept one leading '/' as "from the mount root" (the media service's normalised form). Off on the
   * public API, where an absolute path is refused.
   */
  allowLeadingSlash?: boolean;
}

/** Validates a client path and returns its canonical form; throws 400 INVALID_PATH. */
export function parseMountPath(raw: unknown, options: ParseOptions = {}): MountPath {
  if (typeof raw !== 'string') throw invalidPath('must be a string');
  if (Buffer.byteLength(raw, 'utf8') > MAX_PATH_BYTES) {
    throw invalidPath(`longer than ${MAX_PATH_BYTES} bytes`);
  }
  if (raw.includes('\0')) throw invalidPath('NUL bytes are not allowed');
  if (raw.includes('\\')) throw invalidPath('backslashes are not allowed');
  let value = raw;
  if (options.allowLeadingSlash && value.startsWith('/') && !value.startsWith('//')) value = value.slice(1);
  if (value.startsWith('/')) throw invalidPath('absolute paths are not allowed');
  if (DRIVE_LETTER.test(value)) throw invalidPath('drive letters are not allowed');
  if (value === '') return ROOT_PATH;
  // One trailing '/' (a folder as browsers write it) is accepted; other empty segments are not.
  if (value.endsWith('/')) value = value.slice(0, -1);
  const segments = value.split('/');
  for (const segment of segments) {
    if (segment === '') throw invalidPath('empty segments are not allowed');
    checkSegment(segment);
  }
  return segments.join('/') as MountPath;
}

/** Validates a single name (rename target): one segment, no '/'. */
export function parseEntryName(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length === 0) throw invalidPath('a name must not be empty');
  if (raw.includes('/')) throw invalidPath("a name must not contain '/'");
  if (raw.includes('\0')) throw invalidPath('NUL bytes are not allowed');
  if (raw.includes('\\')) throw invalidPath('backslashes are not allowed');
  checkSegment(raw);
  if (DRIVE_LETTER.test(raw)) throw invalidPath('drive letters are not allowed');
  return raw;
}

/**
 * True for a name a backend reported that can be joined to a path safely. Remote servers are not
 * trusted: a listing entry named '..' or 'a/b' must never become part of a path the node acts on.
 */
export function isUsableName(name: string): boolean {
  try {
    parseEntryName(name);
    return true;
  } catch {
    return false;
  }
}

export function segmentsOf(path: MountPath): string[] {
  return path === '' ? [] : path.split('/');
}

export function joinPath(dir: MountPath, name: string): MountPath {
  return (dir === '' ? name : `${dir}/${name}`) as MountPath;
}

export function parentOf(path: MountPath): MountPath {
  const index = path.lastIndexOf('/');
  return (index < 0 ? '' : path.slice(0, index)) as MountPath;
}

export function nameOf(path: MountPath): string {
  const index = path.lastIndexOf('/');
  return index < 0 ? path : path.slice(index + 1);
}

/** True when `inner` is `outer` or lies below it. */
export function isSameOrBelow(inner: MountPath, outer: MountPath): boolean {
  return outer === '' || inner === outer || inner.startsWith(`${outer}/`);
}

/** The path of `path` relative to `base` ('' when equal); `path` must be at or below `base`. */
export function relativeTo(path: MountPath, base: MountPath): MountPath {
  if (base === '') return path;
  return (path === base ? '' : path.slice(base.length + 1)) as MountPath;
}
