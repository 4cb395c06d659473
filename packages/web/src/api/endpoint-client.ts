import { fillPath, type EndpointDeclaration, type EndpointResponse } from '@svc/contracts';
import type { z } from 'zod';
import { apiRequest, buildUrl, type Credentials } from './client.js';

/**
 * The web app's client of the declared endpoints (contracts/src/endpoints): the path, method, body and the
 * parsing of the answer all come from the declaration, so no page writes an `/api/...` string.
 */

type QueryScalar = string | number | boolean | null | undefined;
/** A query as the server's zod schemas read it: scalars as text, a list as the key repeated. */
export type QueryValues = Readonly<Record<string, QueryScalar | readonly QueryScalar[]>>;

type SchemaOf<E, K extends 'params' | 'query' | 'body'> = E extends { readonly [P in K]: infer S }
  ? S extends z.ZodType
    ? S
    : undefined
  : undefined;

/** A slot the declaration has: required unless every value of it may be left out. */
type Slot<K extends string, S> = S extends z.ZodType
  ? object extends z.input<S>
    ? { readonly [P in K]?: z.input<S> }
    : undefined extends z.input<S>
      ? { readonly [P in K]?: z.input<S> }
      : { readonly [P in K]: z.input<S> }
  : { readonly [P in K]?: never };

/** The raw body of an endpoint that declares a non-JSON request type (`consumes`): a file, sent as is. */
type RawBodySlot<E> = E extends { readonly consumes: string }
  ? { readonly rawBody?: Blob | ArrayBuffer }
  : { readonly rawBody?: never };

/** What a call of endpoint E sends: its path parameters, query and body as the declaration types them. */
export type EndpointCall<E extends EndpointDeclaration> = Slot<'params', SchemaOf<E, 'params'>> &
  Slot<'query', SchemaOf<E, 'query'>> &
  Slot<'body', SchemaOf<E, 'body'>> &
  RawBodySlot<E> & {
    /** Extra headers (the storage node a storage request goes to, the type of a raw body). */
    readonly headers?: Readonly<Record<string, string>>;
    /** Send empty strings of the query too, for a value the server tells apart from a missing one. */
    readonly keepEmptyQuery?: boolean;
    readonly signal?: AbortSignal;
  };

/** The call argument is optional when the endpoint needs nothing. */
export type EndpointCallArgs<E extends EndpointDeclaration> =
  object extends EndpointCall<E> ? [call?: EndpointCall<E>] : [call: EndpointCall<E>];

/** A call of any endpoint, as the client code reads it. */
export interface LooseCall {
  params?: unknown;
  query?: unknown;
  body?: unknown;
  rawBody?: Blob | ArrayBuffer;
  headers?: Readonly<Record<string, string>>;
  keepEmptyQuery?: boolean;
  signal?: AbortSignal;
}

/** The endpoint's path with its `{name}` segments filled (percent-encoded). */
export function endpointPath(endpoint: Pick<EndpointDeclaration, 'path'>, params?: unknown): string {
  return fillPath(endpoint.path, params as Record<string, string | number> | undefined);
}

/**
 * The path with its `{name}` segments filled as given, not encoded: for text people read or paste, such as a
 * command line that shows a masked token (`svc_node_…abcd`).
 */
export function endpointPathText(
  endpoint: Pick<EndpointDeclaration, 'path'>,
  params: Readonly<Record<string, string | number>>,
): string {
  return endpoint.path.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name: string) =>
    String(params[name] ?? whole),
  );
}

/** Path and query of a call, for what is not a JSON request (a download, a stream, an event source). */
export function endpointUrl(
  endpoint: Pick<EndpointDeclaration, 'path'>,
  call: { readonly params?: unknown; readonly query?: unknown; readonly keepEmptyQuery?: boolean } = {},
): string {
  return buildUrl(endpointPath(endpoint, call.params), call.query as QueryValues | undefined, {
    keepEmpty: call.keepEmptyQuery ?? false,
  });
}

/**
 * Calls a declared endpoint with the account's tokens: a non-2xx answer becomes an ApiError, a JSON answer
 * is parsed with the declaration's response schema (an answer that does not match it throws).
 */
export function callEndpoint<E extends EndpointDeclaration>(
  credentials: Credentials | undefined,
  endpoint: E,
  ...[call]: EndpointCallArgs<E>
): Promise<EndpointResponse<E>> {
  const loose = (call ?? {}) as LooseCall;
  return apiRequest<EndpointResponse<E>>(credentials, endpointPath(endpoint, loose.params), {
    method: endpoint.method,
    ...(loose.query !== undefined ? { query: loose.query as QueryValues } : {}),
    ...(loose.body !== undefined ? { body: loose.body } : {}),
    ...(loose.rawBody !== undefined ? { rawBody: loose.rawBody } : {}),
    ...(loose.keepEmptyQuery ? { keepEmptyQuery: true } : {}),
    ...(loose.headers ? { headers: { ...loose.headers } } : {}),
    ...(loose.signal ? { signal: loose.signal } : {}),
    ...(endpoint.response ? { schema: endpoint.response as z.ZodType<EndpointResponse<E>> } : {}),
  });
}

/** callEndpoint bound to one account's tokens (what hooks and mutations receive). */
export type EndpointCaller = <E extends EndpointDeclaration>(
  endpoint: E,
  ...args: EndpointCallArgs<E>
) => Promise<EndpointResponse<E>>;
