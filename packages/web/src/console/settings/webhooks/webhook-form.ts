import {
  createOutboundWebhookRequestSchema,
  OUTBOUND_WEBHOOK_MASK,
  type CreateOutboundWebhookRequest,
  type OutboundWebhook,
  type OutboundWebhookContentType,
  type OutboundWebhookMethod,
  type UpdateOutboundWebhookRequest,
} from '@svc/contracts';
import { zodValidate } from '../../../forms/zod-form.js';

export type KeyValueField = 'query' | 'headers';

/** One row of the query or header table; `rowId` only keys the React list and is never sent. */
export interface KeyValueRow {
  rowId: string;
  key: string;
  value: string;
  sensitive: boolean;
}

export interface WebhookFormValues {
  name: string;
  method: OutboundWebhookMethod;
  url: string;
  contentType: OutboundWebhookContentType;
  enabled: boolean;
  urlSensitive: boolean;
  allowPrivateNetwork: boolean;
  query: KeyValueRow[];
  headers: KeyValueRow[];
  body: string;
  libraryIds: string[];
}

export type DefaultBodies = Readonly<Record<OutboundWebhookContentType, string>>;

let rowCounter = 0;
export function newRow(item: Partial<Omit<KeyValueRow, 'rowId'>> = {}): KeyValueRow {
  rowCounter += 1;
  return { rowId: `row-${rowCounter}`, key: '', value: '', sensitive: false, ...item };
}

export function emptyWebhookValues(defaults: DefaultBodies): WebhookFormValues {
  return {
    name: '',
    method: 'POST',
    url: '',
    contentType: 'application/json',
    enabled: true,
    urlSensitive: false,
    allowPrivateNetwork: false,
    query: [],
    headers: [],
    body: defaults['application/json'],
    libraryIds: [],
  };
}

/** The form of a saved endpoint: sensitive values stay the mask, which a save sends back to mean "unchanged". */
export function webhookToValues(endpoint: OutboundWebhook): WebhookFormValues {
  const rows = (items: OutboundWebhook['query']) => items.map((item) => newRow({ ...item }));
  return {
    name: endpoint.name,
    method: endpoint.method,
    url: endpoint.url,
    contentType: endpoint.contentType,
    enabled: endpoint.enabled,
    urlSensitive: endpoint.urlSensitive,
    allowPrivateNetwork: endpoint.allowPrivateNetwork,
    query: rows(endpoint.query),
    headers: rows(endpoint.headers),
    body: endpoint.body,
    libraryIds: [...endpoint.libraryIds],
  };
}

const isEmptyRow = (row: KeyValueRow) => row.key.trim() === '' && row.value === '';

/** The rows a save sends: untouched blank rows are left out, keys trimmed, values exactly as typed. */
function sentRows(rows: readonly KeyValueRow[]) {
  return rows
    .filter((row) => !isEmptyRow(row))
    .map((row) => ({ key: row.key.trim(), value: row.value, sensitive: row.sensitive }));
}

/** For each sent row, the index of the form row it came from (blank rows are dropped before sending). */
function sentRowIndexes(rows: readonly KeyValueRow[]): number[] {
  return rows.flatMap((row, index) => (isEmptyRow(row) ? [] : [index]));
}

/**
 * The POST or PUT body: the whole form (PUT accepts every field too). A masked URL or item value goes back
 * as it came, which the server reads as "keep the stored value" (docs/webhooks.md, Sensitive values), so
 * secrets never pass through the page. Also what the form is validated against.
 */
export function toWebhookRequest(values: WebhookFormValues) {
  return {
    name: values.name.trim(),
    method: values.method,
    url: values.url.trim(),
    contentType: values.contentType,
    enabled: values.enabled,
    urlSensitive: values.urlSensitive,
    allowPrivateNetwork: values.allowPrivateNetwork,
    query: sentRows(values.query),
    headers: sentRows(values.headers),
    body: values.body,
    libraryIds: [...new Set(values.libraryIds)],
  } satisfies CreateOutboundWebhookRequest & UpdateOutboundWebhookRequest;
}

/** Keys whose stored value is sensitive (answered masked): a row sending the mask under one keeps it. */
export function storedSensitiveKeys(endpoint: OutboundWebhook | undefined) {
  return {
    query: endpoint?.query.filter((item) => item.sensitive).map((item) => item.key) ?? [],
    headers: endpoint?.headers.filter((item) => item.sensitive).map((item) => item.key) ?? [],
  } satisfies Record<KeyValueField, string[]>;
}

/**
 * Rows whose value is the mask but that no stored sensitive value stands behind (a renamed key, a new row):
 * the server would refuse a sensitive one and store the six asterisks literally otherwise. Form paths.
 */
export function orphanMaskPaths(
  values: WebhookFormValues,
  stored: Record<KeyValueField, string[]>,
): string[] {
  const paths: string[] = [];
  for (const field of ['query', 'headers'] as const) {
    const same = (a: string, b: string) =>
      field === 'headers' ? a.toLowerCase() === b.toLowerCase() : a === b;
    values[field].forEach((row, index) => {
      if (row.value !== OUTBOUND_WEBHOOK_MASK) return;
      if (!stored[field].some((key) => same(key, row.key.trim()))) paths.push(`${field}.${index}.value`);
    });
  }
  return paths;
}

/**
 * Moves the request's problem paths (`headers.2.key` of the sent list) onto the form's rows, which also
 * hold blank rows that are not sent. Accepts dotted (`a.1.b`) and JSON-pointer (`/a/1/b`) paths.
 */
export function toFormErrorPaths(
  errors: Record<string, string>,
  values: WebhookFormValues,
): Record<string, string> {
  const indexes = { query: sentRowIndexes(values.query), headers: sentRowIndexes(values.headers) };
  const mapped: Record<string, string> = {};
  for (const [path, message] of Object.entries(errors)) {
    const segments = path.replace(/^\//, '').split(/[./]/);
    const [field, index, ...rest] = segments;
    let formPath = segments.join('.');
    if ((field === 'query' || field === 'headers') && index !== undefined && /^\d+$/.test(index)) {
      const formIndex = indexes[field][Number(index)];
      formPath = formIndex === undefined ? field : [field, formIndex, ...rest].join('.');
    } else if (field === 'libraryIds') {
      formPath = 'libraryIds';
    }
    mapped[formPath] ??= message;
  }
  return mapped;
}

/** The server's `details` of a VALIDATION_FAILED answer, as form errors. */
export function serverFieldErrors(details: unknown, values: WebhookFormValues): Record<string, string> {
  if (!Array.isArray(details)) return {};
  const errors: Record<string, string> = {};
  for (const issue of details as { path?: unknown; message?: unknown }[]) {
    if (typeof issue?.message !== 'string') continue;
    const path = Array.isArray(issue.path) ? issue.path.join('.') : issue.path;
    if (typeof path === 'string' && path !== '' && path !== '/') errors[path] ??= issue.message;
  }
  return toFormErrorPaths(errors, values);
}

/** Whether the body is still untouched: empty, or the default of one of the content types. */
export function isDefaultBody(body: string, defaults: DefaultBodies): boolean {
  return body.trim() === '' || Object.values(defaults).some((text) => text === body);
}

/**
 * A new content type; an untouched (default or empty) body follows it, a written one is kept (the editor
 * then offers the new type's default instead).
 */
export function switchContentType(
  values: Pick<WebhookFormValues, 'contentType' | 'body'>,
  next: OutboundWebhookContentType,
  defaults: DefaultBodies,
): Pick<WebhookFormValues, 'contentType' | 'body'> {
  return { contentType: next, body: isDefaultBody(values.body, defaults) ? defaults[next] : values.body };
}

/**
 * Whether the form holds a change against what it was opened with, judged on what a save would send:
 * blank rows, the order of libraries and surrounding spaces do not count.
 */
export function webhookFormChanged(values: WebhookFormValues, initial: WebhookFormValues): boolean {
  const comparable = (form: WebhookFormValues) => {
    const request = toWebhookRequest(form);
    return JSON.stringify({ ...request, libraryIds: [...request.libraryIds].sort() });
  };
  return comparable(values) !== comparable(initial);
}

const checkRequest = zodValidate(createOutboundWebhookRequestSchema, toWebhookRequest);

/**
 * The form's problems: the contract's schema on what a save would send (moved onto the form's rows), and
 * masks that would keep nothing (`orphanMask` is the text shown for those).
 */
export function validateWebhookForm(
  values: WebhookFormValues,
  stored: Record<KeyValueField, string[]>,
  orphanMask: string,
): Record<string, string> {
  const errors = toFormErrorPaths(checkRequest(values), values);
  for (const path of orphanMaskPaths(values, stored)) errors[path] ??= orphanMask;
  return errors;
}

/**
 * The private-network switch's explanation: what it does, or why this account cannot set it (only role admin
 * may switch it on or keep it; others may only switch off what an administrator allowed).
 */
export function privateNetworkHint(
  isAdmin: boolean,
  allowed: boolean,
):
  'form.allowPrivateNetworkHint' | 'form.allowPrivateNetworkAdminKept' | 'form.allowPrivateNetworkAdminOnly' {
  if (isAdmin) return 'form.allowPrivateNetworkHint';
  return allowed ? 'form.allowPrivateNetworkAdminKept' : 'form.allowPrivateNetworkAdminOnly';
}
