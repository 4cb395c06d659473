import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  browseQuerySchema,
  declareEndpoints,
  deleteNodeQuerySchema,
  listItemsQuerySchema,
} from '@svc/contracts';
import { ApiError, onUnauthorized } from './client.js';
import { callEndpoint, endpointPath, endpointUrl } from './endpoint-client.js';

const itemSchema = z.object({ id: z.string(), name: z.string() });

const sample = declareEndpoints('media', {
  getItem: {
    method: 'GET',
    path: '/api/sample/mounts/{mountId}/items/{itemId}',
    summary: 'One item',
    tag: 'Sample',
    auth: { gateway: { kind: 'public' } },
    params: z.object({ mountId: z.string(), itemId: z.string() }),
    response: itemSchema,
    errors: [],
  },
  browse: {
    method: 'GET',
    path: '/api/sample/mounts/{mountId}/browse',
    summary: 'A folder',
    tag: 'Sample',
    auth: { gateway: { kind: 'public' } },
    params: z.object({ mountId: z.string() }),
    query: browseQuerySchema,
    response: z.object({ path: z.string() }),
    errors: [],
  },
  listItems: {
    method: 'GET',
    path: '/api/sample/items',
    summary: 'Items',
    tag: 'Sample',
    auth: { gateway: { kind: 'public' } },
    query: listItemsQuerySchema,
    response: z.array(itemSchema),
    errors: [],
  },
  deleteNode: {
    method: 'DELETE',
    path: '/api/sample/nodes/{nodeId}',
    summary: 'Remove',
    tag: 'Sample',
    auth: { gateway: { kind: 'public' } },
    params: z.object({ nodeId: z.string() }),
    query: deleteNodeQuerySchema,
    status: 204,
    errors: [],
  },
  rename: {
    method: 'POST',
    path: '/api/sample/rename',
    summary: 'Rename',
    tag: 'Sample',
    auth: { gateway: { kind: 'public' } },
    body: z.object({ from: z.string(), to: z.string() }),
    response: itemSchema,
    errors: [],
  },
  upload: {
    method: 'POST',
    path: '/api/sample/uploads',
    summary: 'Upload',
    tag: 'Sample',
    auth: { gateway: { kind: 'public' } },
    consumes: 'application/octet-stream',
    response: z.object({ id: z.string() }),
    status: 201,
    errors: [],
  },
});

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

function answer(status: number, body?: unknown): { sent: Sent[] } {
  const sent: Sent[] = [];
  vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
    sent.push({
      url,
      method: init.method ?? 'GET',
      headers: init.headers as Record<string, string>,
      body: (init.body as string | null) ?? null,
    });
    const text = body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body);
    return Promise.resolve(new Response(text, { status }));
  });
  return { sent };
}

/** The query as Fastify hands it to the route: one value per key, a repeated key as a list. */
function serverQuery(url: string): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [key, value] of new URL(url, 'http://x').searchParams) {
    const seen = result[key];
    result[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return result;
}

afterEach(() => {
  vi.unstubAllGlobals();
  onUnauthorized(undefined);
});

describe('endpoint paths', () => {
  it('fills every parameter, percent-encoded', () => {
    expect(endpointPath(sample.getItem, { mountId: 'a b/c', itemId: 'ü?#' })).toBe(
      '/api/sample/mounts/a%20b%2Fc/items/%C3%BC%3F%23',
    );
  });

  it('refuses a missing parameter instead of sending a broken path', () => {
    expect(() => endpointPath(sample.getItem, { mountId: 'm' })).toThrow(/itemId/);
  });

  it('builds the URL of a non-JSON answer with its query', () => {
    expect(endpointUrl(sample.browse, { params: { mountId: 'm1' }, query: { path: '/x y' } })).toBe(
      '/api/sample/mounts/m1/browse?path=%2Fx+y',
    );
  });
});

describe('callEndpoint', () => {
  it('sends the method, the filled path and the tokens, and parses the answer with the response schema', async () => {
    const { sent } = answer(200, { id: 'i1', name: 'Film', extra: true });
    const item = await callEndpoint({ accessToken: 'at', adminToken: 'adm' }, sample.getItem, {
      params: { mountId: 'm', itemId: 'i 1' },
    });
    expect(item).toEqual({ id: 'i1', name: 'Film' });
    expect(sent[0]!.url).toBe('/api/sample/mounts/m/items/i%201');
    expect(sent[0]!.method).toBe('GET');
    expect(sent[0]!.headers).toMatchObject({ authorization: 'Bearer at', 'x-admin-token': 'adm' });
    expect(sent[0]!.body).toBeNull();
  });

  it('serialises the query so the server’s zod schema reads back the same values', async () => {
    const { sent } = answer(200, { path: '/' });
    await callEndpoint(undefined, sample.browse, {
      params: { mountId: 'm' },
      query: { path: '/Movies', page: 3, pageSize: 50, sort: 'size', order: 'desc' },
    });
    expect(browseQuerySchema.parse(serverQuery(sent[0]!.url))).toEqual({
      path: '/Movies',
      page: 3,
      pageSize: 50,
      sort: 'size',
      order: 'desc',
    });
  });

  it('leaves out empty values so the server’s defaults apply', async () => {
    const { sent } = answer(200, []);
    await callEndpoint(undefined, sample.listItems, { query: { page: 2, search: '', kind: undefined } });
    expect(sent[0]!.url).toBe('/api/sample/items?page=2');
    expect(listItemsQuerySchema.parse(serverQuery(sent[0]!.url))).toMatchObject({ page: 2, pageSize: 50 });
  });

  it('sends a boolean flag as the text the schema expects and returns nothing for 204', async () => {
    const { sent } = answer(204);
    const result = await callEndpoint(undefined, sample.deleteNode, {
      params: { nodeId: 'n1' },
      query: { sendUninstall: 'true' },
    });
    expect(result).toBeUndefined();
    expect(sent[0]!.method).toBe('DELETE');
    expect(deleteNodeQuerySchema.parse(serverQuery(sent[0]!.url))).toEqual({ sendUninstall: true });
  });

  it('repeats the key of a list', async () => {
    const { sent } = answer(200, []);
    await callEndpoint(undefined, sample.listItems, { query: { search: 'a' } });
    expect(endpointUrl(sample.listItems, { query: { id: ['a', 'b'] } })).toBe('/api/sample/items?id=a&id=b');
    expect(sent[0]!.url).toBe('/api/sample/items?search=a');
  });

  it('sends empty query values only when the call asks for them', async () => {
    const { sent } = answer(200, []);
    await callEndpoint(undefined, sample.listItems, {
      query: { search: '', kind: 'movie' },
      keepEmptyQuery: true,
    });
    expect(sent[0]!.url).toBe('/api/sample/items?search=&kind=movie');
    expect(endpointUrl(sample.listItems, { query: { search: '' }, keepEmptyQuery: true })).toBe(
      '/api/sample/items?search=',
    );
    expect(endpointUrl(sample.listItems, { query: { search: '' } })).toBe('/api/sample/items');
  });

  it('sends the raw body of an endpoint that declares its own request type, with the given type', async () => {
    const { sent } = answer(201, { id: 'u1' });
    const bytes = new Uint8Array([1, 2, 3]).buffer;
    const uploaded = await callEndpoint({ accessToken: 't' }, sample.upload, {
      rawBody: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(uploaded).toEqual({ id: 'u1' });
    expect(sent[0]!.method).toBe('POST');
    expect(sent[0]!.headers['content-type']).toBe('application/octet-stream');
    expect(sent[0]!.body).toBe(bytes);
  });

  it('sends the body as JSON', async () => {
    const { sent } = answer(200, { id: 'i', name: 'b' });
    await callEndpoint({ accessToken: 't' }, sample.rename, { body: { from: 'a', to: 'b' } });
    expect(sent[0]!.method).toBe('POST');
    expect(sent[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent[0]!.body!)).toEqual({ from: 'a', to: 'b' });
  });

  it('turns the error body into an ApiError with its code and tells the app about a 401', async () => {
    answer(409, {
      error: { code: 'ALREADY_EXISTS', message: 'the name is taken', details: { field: 'to' } },
    });
    const failure = await callEndpoint(undefined, sample.rename, { body: { from: 'a', to: 'b' } }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 409, code: 'ALREADY_EXISTS', message: 'the name is taken' });

    const unauthorized = vi.fn();
    onUnauthorized(unauthorized);
    answer(401, 'no');
    const credentials = { accessToken: 'old' };
    await expect(
      callEndpoint(credentials, sample.getItem, { params: { mountId: 'm', itemId: 'i' } }),
    ).rejects.toMatchObject({ status: 401, code: 'HTTP_401' });
    expect(unauthorized).toHaveBeenCalledWith(credentials);
  });

  it('turns a failed connection into a NETWORK_ERROR ApiError', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('connection refused')));
    await expect(callEndpoint(undefined, sample.listItems)).rejects.toMatchObject({
      status: 0,
      code: 'NETWORK_ERROR',
    });
  });

  it('refuses an answer that does not match the declared response', async () => {
    answer(200, { id: 7 });
    await expect(
      callEndpoint(undefined, sample.getItem, { params: { mountId: 'm', itemId: 'i' } }),
    ).rejects.toBeInstanceOf(z.ZodError);
  });
});
