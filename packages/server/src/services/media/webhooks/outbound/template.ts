import {
  OUTBOUND_WEBHOOK_DATA_VARIABLES,
  OUTBOUND_WEBHOOK_URLENCODE_PREFIX,
  type OutboundWebhookContentType,
} from '@svc/contracts';
import type { MediaEventPayload } from '../../events/media-events.repository.js';

/**
 * Outbound webhook templates: `{{name}}` with one of the 24 data variables, optionally prefixed
 * `urlencode.`; spaces inside the braces are allowed. Where a value lands decides how it is written:
 *
 * - `url`: as it is; `urlencode.` applies encodeURIComponent (use it for values in paths and queries).
 * - `query` (values of the query table) and `form` (x-www-form-urlencoded bodies): always percent-encoded
 *   exactly once, so `&` or `=` in a title cannot add fields; `urlencode.` changes nothing there.
 * - `header`: as it is, control characters (CR, LF, …) replaced by spaces, sent as UTF-8 bytes;
 *   `urlencode.` encodes.
 * - `text` (text/plain bodies): as it is; `urlencode.` encodes.
 * - `json` (application/json bodies): inside a JSON string the value is JSON-escaped (quotes, backslashes,
 *   control characters), so no value can end the string; outside a string it is a JSON value: a number,
 *   null for an absent value, a quoted string, and the event object for `payloadJson`.
 *
 * Absent values (a movie's episode number, a missing year) are empty text, or `null` in JSON outside a
 * string.
 */
export type TemplateContext = 'url' | 'query' | 'header' | 'text' | 'form' | 'json';

type Value = string | number | null | MediaEventPayload;

const NAMES = new Set(OUTBOUND_WEBHOOK_DATA_VARIABLES.map((variable) => variable.name));
const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z.]*)\s*\}\}/g;

interface Variable {
  name: string;
  urlencode: boolean;
}

function parseName(raw: string): Variable | null {
  const urlencode = raw.startsWith(OUTBOUND_WEBHOOK_URLENCODE_PREFIX);
  const name = urlencode ? raw.slice(OUTBOUND_WEBHOOK_URLENCODE_PREFIX.length) : raw;
  return NAMES.has(name) ? { name, urlencode } : null;
}

/** The variables a template names that do not exist (`{{media.titel}}`), in order, once each. */
export function unknownVariables(template: string): string[] {
  const unknown = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (!parseName(match[1]!)) unknown.add(match[1]!);
  }
  return [...unknown];
}

export function variableValue(payload: MediaEventPayload, name: string): Value {
  if (name === 'payloadJson') return payload;
  const [group, field] = name.split('.') as [keyof MediaEventPayload, string];
  const value = (payload[group] as unknown as Record<string, string | number | null> | undefined)?.[field];
  return value === undefined ? null : value;
}

const asText = (value: Value): string =>
  value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;

/**
 * A rendered header value as it goes on the wire: control characters (also in the template's own text)
 * replaced by spaces, and the UTF-8 bytes one character each (Node writes header strings as latin1), so a
 * title such as "Amélie ✓" arrives UTF-8 encoded instead of breaking the request.
 */
export function headerValue(rendered: string): string {
  const clean = rendered.replace(CONTROL, ' ');
  // eslint-disable-next-line no-control-regex
  return /^[\u0000-\u007f]*$/.test(clean) ? clean : Buffer.from(clean, 'utf8').toString('latin1');
}

function write(value: Value, variable: Variable, context: Exclude<TemplateContext, 'json'>): string {
  const text = asText(value);
  switch (context) {
    case 'query':
      // Encoded once when the query string is built.
      return text;
    case 'form':
      return encodeURIComponent(text);
    case 'header':
      return variable.urlencode ? encodeURIComponent(text) : text.replace(CONTROL, ' ');
    default:
      return variable.urlencode ? encodeURIComponent(text) : text;
  }
}

function writeJson(value: Value, variable: Variable, inString: boolean): string {
  const plain: Value = variable.urlencode ? encodeURIComponent(asText(value)) : value;
  if (inString) return JSON.stringify(asText(plain)).slice(1, -1);
  return plain === null ? 'null' : JSON.stringify(plain);
}

/**
 * Renders a JSON template: walks it as JSON text to know, at each placeholder, whether it sits inside a
 * string literal. Text outside placeholders is copied unchanged.
 */
function renderJson(template: string, payload: MediaEventPayload): string {
  let out = '';
  let inString = false;
  let escaped = false;
  let last = 0;
  const scan = (text: string) => {
    for (const ch of text) {
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === '\\') escaped = true;
        else if (ch === '"') inString = false;
      } else if (ch === '"') {
        inString = true;
      }
    }
  };
  for (const match of template.matchAll(PLACEHOLDER)) {
    const before = template.slice(last, match.index);
    scan(before);
    out += before;
    const variable = parseName(match[1]!);
    if (variable) {
      out += writeJson(variableValue(payload, variable.name), variable, inString);
    } else {
      scan(match[0]);
      out += match[0];
    }
    last = match.index + match[0].length;
  }
  return out + template.slice(last);
}

export function renderTemplate(
  template: string,
  payload: MediaEventPayload,
  context: TemplateContext,
): string {
  if (context === 'json') return renderJson(template, payload);
  return template.replace(PLACEHOLDER, (whole, raw: string) => {
    const variable = parseName(raw);
    return variable ? write(variableValue(payload, variable.name), variable, context) : whole;
  });
}

export function bodyContext(contentType: OutboundWebhookContentType): TemplateContext {
  return contentType === 'application/json'
    ? 'json'
    : contentType === 'application/x-www-form-urlencoded'
      ? 'form'
      : 'text';
}

/** A sample event for validation and for POST …/:id/test; its texts carry quotes, `&` and non-ASCII. */
export function sampleEvent(now: Date, eventId: string): MediaEventPayload {
  return {
    event: { id: eventId, type: 'media.test', occurredAt: now.toISOString() },
    library: { id: '00000000-0000-4000-8000-000000000000', name: 'Sample "Films" & Séries' },
    media: {
      id: '00000000-0000-4000-8000-000000000001',
      type: 'series',
      title: 'The "Sample" Show & Co. — Ünïcode\\Test',
      originalTitle: 'サンプル',
      year: 2024,
      releaseDate: '2024-05-01',
      tmdbId: '12345',
      imdbId: 'tt0012345',
      posterPath: '/sample-poster.jpg',
      posterUrl: 'https://image.tmdb.org/t/p/original/sample-poster.jpg',
      overview: 'Line one.\nLine two with a tab\tand a </script>.',
    },
    episode: { seasonNumber: 1, episodeNumber: 2, name: 'Pilot, Part "2"' },
    item: { sourceItemId: '00000000-0000-4000-8000-000000000002', name: 'Sample Show - S01E02.mkv' },
    summary: { newTitles: 1, newItems: 1 },
  };
}
