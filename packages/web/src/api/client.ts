import { errorBodySchema, type AnyErrorCode } from '@svc/contracts';
import type { z } from 'zod';

/** An answer of the API that was not 2xx, carrying the error body's stable code (translated in the UI). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: AnyErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The credentials a request carries: the access token always, the admin token from the console. */
export interface Credentials {
  accessToken: string;
  adminToken?: string;
}

type QueryScalar = string | number | boolean | undefined | null;

export interface RequestOptions<T> {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  /** Scalars as text; a list as its key repeated (what Fastify's query parser turns back into an array). */
  query?: Readonly<Record<string, QueryScalar | readonly QueryScalar[]>>;
  /** Send empty strings of the query too (for a value the server tells apart from a missing one). */
  keepEmptyQuery?: boolean;
  body?: unknown;
  /** Raw body (a file chunk); sent as is with its own content type. */
  rawBody?: Blob | ArrayBuffer;
  headers?: Record<string, string>;
  schema?: z.ZodType<T>;
  signal?: AbortSignal;
}

/** Called with every 401 so the app can drop a session that the server no longer accepts. */
let unauthorizedListener: ((credentials: Credentials | undefined) => void) | undefined;
export function onUnauthorized(listener: typeof unauthorizedListener): void {
  unauthorizedListener = listener;
}

export function buildUrl(
  path: string,
  query?: RequestOptions<unknown>['query'],
  { keepEmpty = false }: { keepEmpty?: boolean } = {},
): string {
  const params = new URLSearchParams();
  for (const [key, entry] of Object.entries(query ?? {})) {
    const values: readonly QueryScalar[] = Array.isArray(entry) ? entry : [entry as QueryScalar];
    // Left out rather than sent empty, unless asked: the server's schemas then apply their defaults.
    for (const value of values) {
      if (value === undefined || value === null || (value === '' && !keepEmpty)) continue;
      params.append(key, String(value));
    }
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export function authHeaders(credentials: Credentials | undefined): Record<string, string> {
  if (!credentials) return {};
  return {
    authorization: `Bearer ${credentials.accessToken}`,
    ...(credentials.adminToken ? { 'x-admin-token': credentials.adminToken } : {}),
  };
}

/** Turns a failed response into an ApiError, reading the service's error body when there is one. */
export async function errorFrom(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      const { code, message, details } = parsed.data.error;
      return new ApiError(response.status, code, message, details);
    }
  } catch {
    // not JSON: a proxy's page or an empty body
  }
  return new ApiError(response.status, `HTTP_${response.status}`, text.slice(0, 200) || response.statusText);
}

/** One JSON request to the public API through the gateway. */
export async function apiRequest<T = unknown>(
  credentials: Credentials | undefined,
  path: string,
  options: RequestOptions<T> = {},
): Promise<T> {
  const headers: Record<string, string> = { ...authHeaders(credentials), ...options.headers };
  let body: BodyInit | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query, { keepEmpty: options.keepEmptyQuery ?? false }), {
      method: options.method ?? 'GET',
      headers,
      body: body ?? null,
      signal: options.signal ?? null,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'NETWORK_ERROR', (error as Error).message);
  }
  if (!response.ok) {
    const failure = await errorFrom(response);
    if (response.status === 401) unauthorizedListener?.(credentials);
    throw failure;
  }
  if (response.status === 204 || options.method === 'HEAD') return undefined as T;
  const text = await response.text();
  const data: unknown = text ? JSON.parse(text) : undefined;
  return options.schema ? options.schema.parse(data) : (data as T);
}
