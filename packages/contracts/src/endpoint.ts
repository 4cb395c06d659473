import type { z } from 'zod';
import type { ErrorCode } from './error-codes.js';
import type { RouteAuth } from './route-rules.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The service that serves an endpoint (its routes register it; the gateway forwards to it). */
export type EndpointService = 'config' | 'user' | 'media' | 'storage' | 'play-agent' | 'shared' | 'gateway';

/**
 * One endpoint, declared once (docs/architecture.md "Endpoints"). The serving route, its validation, the
 * gateway's rule table, the web app's typed client and the OpenAPI document all come from it.
 */
export interface EndpointSpec {
  readonly method: HttpMethod;
  /** OpenAPI-style path: `{name}` for one segment; a trailing `/*` stands for a whole subtree. */
  readonly path: string;
  /** One line for the reference page. */
  readonly summary: string;
  /** Group on the reference page (for example "Users", "Storage mounts"). */
  readonly tag: string;
  readonly auth: RouteAuth;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  /** The JSON body of the success answer; absent for an empty answer or one described by `produces`. */
  readonly response?: z.ZodType;
  /** Status of the success answer (default 200; 204 has no body). */
  readonly status?: 200 | 201 | 202 | 204 | 206 | 302;
  /** Media type of a success answer that is not JSON (a file, a script, an event stream). */
  readonly produces?: string;
  /** Media type of a request body that is not JSON (a file chunk, a multipart form). */
  readonly consumes?: string;
  /** The error codes this endpoint answers with besides the common ones (VALIDATION_FAILED, auth, 5xx). */
  readonly errors: readonly ErrorCode[];
}

/** A declared endpoint: its spec plus the name it was declared under. */
export interface EndpointDeclaration extends EndpointSpec {
  /** `<service>.<action>`: the OpenAPI operationId and the name the route audit and logs use. */
  readonly id: string;
  readonly service: EndpointService;
}

/**
 * Declares a service's endpoints under their action names (camelCase), keeping each schema's exact type for
 * the route handler and the web client; the id is `<service>.<action>`.
 */
export function declareEndpoints<
  const S extends EndpointService,
  const T extends Record<string, EndpointSpec>,
>(
  service: S,
  specs: T,
): { readonly [K in keyof T & string]: T[K] & { readonly id: `${S}.${K}`; readonly service: S } } {
  const declared: Record<string, EndpointDeclaration> = {};
  for (const [action, spec] of Object.entries(specs))
    declared[action] = { ...spec, id: `${service}.${action}`, service };
  return declared as never;
}

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;
type Input<S> = S extends z.ZodType ? z.input<S> : undefined;

/** What a route handler receives, after validation. */
export type EndpointParams<E extends EndpointDeclaration> = Output<E['params']>;
export type EndpointQuery<E extends EndpointDeclaration> = Output<E['query']>;
export type EndpointBody<E extends EndpointDeclaration> = Output<E['body']>;
/** What a caller sends (before defaults and transforms). */
export type EndpointParamsInput<E extends EndpointDeclaration> = Input<E['params']>;
export type EndpointQueryInput<E extends EndpointDeclaration> = Input<E['query']>;
export type EndpointBodyInput<E extends EndpointDeclaration> = Input<E['body']>;
/** The success answer a caller receives. */
export type EndpointResponse<E extends EndpointDeclaration> = Output<E['response']>;
/** What a handler may return for the success answer (before serialization). */
export type EndpointResponseInput<E extends EndpointDeclaration> = Input<E['response']>;

/** `/api/x/{id}` → `/api/x/:id` (find-my-way, the router of Fastify and of the gateway). */
export function routerPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/** Fills `{name}` segments with percent-encoded values. */
export function fillPath(path: string, params: Record<string, string | number> | undefined): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} for ${path}`);
    return encodeURIComponent(String(value));
  });
}
