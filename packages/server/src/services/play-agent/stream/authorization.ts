import type { IncomingHttpHeaders } from 'node:http';

/**
 * The client authorization of Emby/Jellyfin players (docs/streaming.md):
 *
 *   X-Emby-Authorization: MediaBrowser Client="Emby Web", Device="Firefox", DeviceId="abc",
 *                         Version="4.8.0", Token="…", UserId="…"
 *
 * - Headers `X-Emby-Authorization`, then `Authorization`; the first whose scheme is `MediaBrowser` or
 *   `Emby` (any letter case) counts. Parameter names are case-insensitive; values are quoted or not,
 *   separated by commas and optional spaces; the first occurrence of a name wins.
 * - Values are percent-decoded (as clients encode them with encodeURIComponent); a malformed escape
 *   never throws: unreadable escapes stay as they are, invalid UTF-8 becomes U+FFFD. `+` stays `+`.
 * - The token is, in this order: the `Token` parameter, the `X-Emby-Token` header, the
 *   `X-MediaBrowser-Token` header, the query parameters `ApiKey`, `api_key`, `X-Emby-Token` (query names
 *   in any letter case).
 * - Client, device and version missing from the header are taken from the `X-Emby-Client`,
 *   `X-Emby-Device-Name`, `X-Emby-Device-Id`, `X-Emby-Client-Version` headers or query parameters (Emby
 *   web sends them as query parameters), and the device id from the `DeviceId` query parameter.
 * - Hostile input costs bounded work: a header longer than 8 KiB is treated as absent, every value is
 *   capped (device fields are cut to the lengths of the playback contract, an over-long token is absent),
 *   and control characters are removed from device fields.
 */

export interface ClientAuthorization {
  token?: string;
  /** Where the token came from (tokens in the query end up in logs of proxies: worth knowing). */
  tokenSource?: 'authorization' | 'header' | 'query';
  userId?: string;
  client: string;
  deviceName: string;
  deviceId: string;
  version: string;
}

/** Headers longer than this are treated as absent. */
export const MAX_AUTHORIZATION_HEADER_LENGTH = 8 * 1024;
/** Caps of the decoded values (the device fields match playbackDeviceSchema). */
export const FIELD_LIMITS = {
  client: 256,
  deviceName: 256,
  deviceId: 256,
  version: 64,
  userId: 128,
  token: 1024,
} as const;

const SCHEMES = new Set(['mediabrowser', 'emby']);
const KEY_CHAR = /[A-Za-z0-9_-]/;
// C0 controls, DEL and C1 controls never belong in a device name or id.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * Percent-decodes a value without ever throwing: runs of valid `%xx` escapes are decoded as UTF-8 (invalid
 * sequences become U+FFFD); a `%` not followed by two hex digits stays literal.
 */
export function safeDecode(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value.replace(ESCAPE_RUN, (run) => lenientUtf8.decode(Buffer.from(run.replace(/%/g, ''), 'hex')));
  }
}

/**
 * Reads the parameters of a `MediaBrowser …` / `Emby …` header value: lower-cased names → raw (not yet
 * decoded) values. Null when the value is too long or has another scheme. Linear in the input.
 */
export function parseAuthorizationParams(value: string | undefined): Map<string, string> | null {
  if (value === undefined || value.length > MAX_AUTHORIZATION_HEADER_LENGTH) return null;
  const scheme = /^[ \t]*([A-Za-z]+)(?:[ \t]+|$)/.exec(value);
  if (!scheme || !SCHEMES.has(scheme[1]!.toLowerCase())) return null;
  const params = new Map<string, string>();
  const text = value;
  const length = text.length;
  let i = scheme[0].length;
  const skip = (chars: string) => {
    while (i < length && chars.includes(text[i]!)) i++;
  };
  const toNextComma = () => {
    const comma = text.indexOf(',', i);
    i = comma < 0 ? length : comma;
  };
  while (i < length) {
    skip(' \t,');
    if (i >= length) break;
    const keyStart = i;
    while (i < length && KEY_CHAR.test(text[i]!)) i++;
    const key = text.slice(keyStart, i).toLowerCase();
    skip(' \t');
    if (key === '' || text[i] !== '=') {
      // Not a `name=value` pair: skip it and read on after the next comma.
      toNextComma();
      continue;
    }
    i++;
    skip(' \t');
    let raw: string;
    if (text[i] === '"') {
      const close = text.indexOf('"', i + 1);
      if (close < 0) break; // an unterminated quote: nothing after it can be trusted
      raw = text.slice(i + 1, close);
      i = close + 1;
      skip(' \t');
      if (i < length && text[i] !== ',') toNextComma();
    } else {
      const comma = text.indexOf(',', i);
      const end = comma < 0 ? length : comma;
      raw = text.slice(i, end).replace(/[ \t]+$/, '');
      i = end;
    }
    if (!params.has(key)) params.set(key, raw);
  }
  return params;
}

/** The query of a request as any of the forms a caller may hold. */
export type QueryInput = string | URLSearchParams | Readonly<Record<string, unknown>> | undefined | null;

/** Query values by lower-cased name (first value of each name), bounded. */
function queryMap(query: QueryInput): Map<string, string> {
  const result = new Map<string, string>();
  if (query === undefined || query === null) return result;
  const add = (name: string, value: unknown) => {
    const key = name.toLowerCase();
    const first: unknown = Array.isArray(value) ? (value as unknown[])[0] : value;
    if (typeof first === 'string' && !result.has(key)) result.set(key, first);
  };
  if (typeof query === 'string') {
    const text = query.startsWith('?') ? query.slice(1) : query;
    if (text.length > 4 * MAX_AUTHORIZATION_HEADER_LENGTH) return result;
    for (const [name, value] of new URLSearchParams(text)) add(name, value);
  } else if (query instanceof URLSearchParams) {
    for (const [name, value] of query) add(name, value);
  } else {
    for (const name of Object.keys(query)) add(name, query[name]);
  }
  return result;
}

/** A single header value, or undefined for absent, repeated-as-array or over-long ones. */
function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const single = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
  if (typeof single !== 'string' || single.length > MAX_AUTHORIZATION_HEADER_LENGTH) return undefined;
  return single;
}

/** Removes control characters and cuts to `max` UTF-16 units without leaving half a surrogate pair. */
function clean(value: string, max: number): string {
  let result = value.replace(CONTROL, '');
  if (result.length > max) {
    result = result.slice(0, max);
    if (/[\ud800-\udbff]$/.test(result)) result = result.slice(0, -1);
  }
  return result;
}

/** A token as found, or undefined when it is empty, over-long or holds controls or spaces. */
function tokenOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const token = value.trim();
  // eslint-disable-next-line no-control-regex
  if (token === '' || token.length > FIELD_LIMITS.token || /[\s\u0000-\u001f\u007f]/.test(token)) {
    return undefined;
  }
  return token;
}

/**
 * The client authorization of a request: token, user id, client, device and version. Never throws;
 * fields that are nowhere are '' (the token and user id are then absent).
 */
export function readClientAuthorization(
  headers: IncomingHttpHeaders,
  query?: QueryInput,
): ClientAuthorization {
  const params =
    parseAuthorizationParams(headerValue(headers, 'x-emby-authorization')) ??
    parseAuthorizationParams(headerValue(headers, 'authorization')) ??
    new Map<string, string>();
  const queries = queryMap(query);
  const param = (name: string) => {
    const raw = params.get(name);
    return raw === undefined ? undefined : safeDecode(raw);
  };
  const fromHeader = (name: string) => {
    const raw = headerValue(headers, name);
    return raw === undefined ? undefined : safeDecode(raw);
  };
  const pick = (...values: (string | undefined)[]) => values.find((v) => v !== undefined && v !== '');

  const result: ClientAuthorization = {
    client: clean(
      pick(param('client'), fromHeader('x-emby-client'), queries.get('x-emby-client')) ?? '',
      FIELD_LIMITS.client,
    ),
    deviceName: clean(
      pick(param('device'), fromHeader('x-emby-device-name'), queries.get('x-emby-device-name')) ?? '',
      FIELD_LIMITS.deviceName,
    ),
    deviceId: clean(
      pick(
        param('deviceid'),
        fromHeader('x-emby-device-id'),
        queries.get('x-emby-device-id'),
        queries.get('deviceid'),
      ) ?? '',
      FIELD_LIMITS.deviceId,
    ),
    version: clean(
      pick(param('version'), fromHeader('x-emby-client-version'), queries.get('x-emby-client-version')) ?? '',
      FIELD_LIMITS.version,
    ),
  };
  const userId = clean(param('userid') ?? '', FIELD_LIMITS.userId);
  if (userId) result.userId = userId;

  const sources: [ClientAuthorization['tokenSource'], string | undefined][] = [
    ['authorization', param('token')],
    ['header', headerValue(headers, 'x-emby-token')],
    ['header', headerValue(headers, 'x-mediabrowser-token')],
    ['query', queries.get('apikey')],
    ['query', queries.get('api_key')],
    ['query', queries.get('x-emby-token')],
  ];
  for (const [source, value] of sources) {
    const token = tokenOf(value);
    if (token !== undefined) {
      result.token = token;
      result.tokenSource = source;
      break;
    }
  }
  return result;
}

/** Values for formatAuthorizationHeader (tests and clients of our own). */
export interface AuthorizationValues {
  client?: string;
  deviceName?: string;
  deviceId?: string;
  version?: string;
  token?: string;
  userId?: string;
}

/** Writes a `MediaBrowser …` header value the way Jellyfin's clients do: quoted, percent-encoded values. */
export function formatAuthorizationHeader(
  values: AuthorizationValues,
  options: { scheme?: string; quote?: boolean; separator?: string } = {},
): string {
  const names: [keyof AuthorizationValues, string][] = [
    ['userId', 'UserId'],
    ['client', 'Client'],
    ['deviceName', 'Device'],
    ['deviceId', 'DeviceId'],
    ['version', 'Version'],
    ['token', 'Token'],
  ];
  const quote = options.quote ?? true;
  const parts = names
    .filter(([key]) => values[key] !== undefined)
    .map(([key, name]) => {
      const encoded = encodeURIComponent(values[key]!);
      return `${name}=${quote ? `"${encoded}"` : encoded}`;
    });
  return `${options.scheme ?? 'MediaBrowser'} ${parts.join(options.separator ?? ', ')}`;
}
