// @vitest-environment jsdom
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { setLanguage } from '../../i18n/i18n.js';
import { SessionProvider } from '../../session/session.js';
import { stubBrowserForMantine } from '../../testing/jsdom-mantine.js';
import ApiReferencePage, { ApiReference } from './api-reference-page.js';
import { openapiFixture } from './openapi-fixture.js';
import { describeSchema, filterOperations, operationsByTag } from './openapi-model.js';

beforeAll(stubBrowserForMantine);
afterEach(cleanup);
afterAll(() => setLanguage('en'));

describe('reading the OpenAPI document', () => {
  const tags = operationsByTag(openapiFixture);

  it('groups operations by tag in the document’s tag order', () => {
    expect(tags.map((tag) => [tag.name, tag.operations.map((operation) => operation.id)])).toEqual([
      ['Nodes', ['config.updateNode', 'config.deleteNode']],
      ['Deployment', ['config.getCapabilities']],
    ]);
  });

  it('reads method, permission, security, path-level parameters and error codes', () => {
    const update = tags[0]!.operations[0]!;
    expect(update).toMatchObject({
      method: 'PATCH',
      path: '/api/config/nodes/{nodeId}',
      permissions: ['node'],
      security: ['accessToken', 'adminToken'],
      errorCodes: ['NODE_NAME_TAKEN', 'NODE_NOT_FOUND'],
    });
    expect(update.parameters).toEqual([
      {
        name: 'nodeId',
        in: 'path',
        required: true,
        schema: { type: 'string', constraints: ['maxLength: 100'] },
      },
    ]);
    expect(tags[1]!.operations[0]!.security).toEqual([]);
  });

  it('resolves references into nested fields and stops at a cycle', () => {
    const body = tags[0]!.operations[0]!.requestBodies[0]!.schema!;
    expect(body.fields!.map((field) => [field.name, field.schema.type, field.required])).toEqual([
      ['name', 'string', false],
      ['addresses', 'array of object', false],
      ['parent', 'UpdateNode', false],
    ]);
    const addresses = body.fields![1]!.schema.fields!;
    expect(addresses.map((field) => [field.name, field.required, field.schema.enumValues])).toEqual([
      ['protocol', true, ['http', 'https']],
      ['host', true, undefined],
    ]);
    // parent → UpdateNode again, inside UpdateNode: named, not expanded forever.
    expect(body.fields![2]!.schema).toEqual({ type: 'UpdateNode', constraints: [] });
  });

  it('shows nullable types the way they are written in both JSON Schema forms', () => {
    expect(describeSchema({}, { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] })).toMatchObject({
      type: 'integer | null',
      constraints: ['minimum: 0'],
    });
    expect(describeSchema({}, { type: ['boolean', 'null'] }).type).toBe('boolean | null');
  });

  it('searches path, summary, id and permission with every word', () => {
    expect(filterOperations(tags, 'node remove').flatMap((tag) => tag.operations.map((op) => op.id))).toEqual(
      ['config.deleteNode'],
    );
    expect(filterOperations(tags, 'capabilities').map((tag) => tag.name)).toEqual(['Deployment']);
    expect(filterOperations(tags, 'nothing-like-this')).toEqual([]);
  });
});

describe('the reference page', () => {
  const view = () =>
    render(
      <MantineProvider>
        <ApiReference document={openapiFixture} />
      </MantineProvider>,
    );

  it('lists the operations by tag with method and path, and opens one to its fields', async () => {
    setLanguage('en');
    const page = view();
    const tagBlocks = page.getAllByTestId('api-tag');
    expect(tagBlocks.map((block) => block.getAttribute('data-tag'))).toEqual(['Nodes', 'Deployment']);
    const update = page.getAllByTestId('api-operation')[0]!;
    expect(within(update).getByTestId('method-badge').textContent).toBe('PATCH');
    fireEvent.click(within(update).getByRole('button'));
    await waitFor(() =>
      expect(within(update).getByTestId('operation-permission').textContent).toContain('node'),
    );
    const fields = within(update)
      .getAllByTestId('schema-field')
      .map((field) => field.getAttribute('data-name'));
    expect(fields).toEqual(expect.arrayContaining(['name', 'addresses', 'protocol', 'host', 'nodeId']));
    expect(within(update).getByTestId('operation-errors').textContent).toContain('NODE_NOT_FOUND');
  });

  it('filters with the search box and says when nothing matches', async () => {
    const page = view();
    fireEvent.change(
      page.getByTestId('api-search').querySelector('input') ?? page.getByTestId('api-search'),
      {
        target: { value: 'capabilities' },
      },
    );
    await waitFor(() => expect(page.getAllByTestId('api-operation')).toHaveLength(1));
    fireEvent.change(
      page.getByTestId('api-search').querySelector('input') ?? page.getByTestId('api-search'),
      {
        target: { value: 'zzz' },
      },
    );
    await waitFor(() => expect(page.getByTestId('api-no-match')).toBeDefined());
  });

  it('speaks Chinese', () => {
    setLanguage('zh');
    const page = view();
    const update = page.getAllByTestId('api-operation')[0]!;
    fireEvent.click(within(update).getByRole('button'));
    expect(page.getByText('2 个接口')).toBeDefined();
    setLanguage('en');
  });
});

describe('the API reference page', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('reads the document from the declared address and links to it', async () => {
    const requested: string[] = [];
    vi.stubGlobal('fetch', (url: string) => {
      requested.push(url);
      return Promise.resolve(new Response(JSON.stringify(openapiFixture), { status: 200 }));
    });
    const page = render(
      <QueryClientProvider client={new QueryClient()}>
        <MantineProvider>
          <SessionProvider app="console">
            <ApiReferencePage />
          </SessionProvider>
        </MantineProvider>
      </QueryClientProvider>,
    );
    await waitFor(() => expect(page.getAllByTestId('api-operation')).toHaveLength(3));
    expect(requested).toEqual(['/api/openapi.json']);
    expect(page.getByTestId('api-document-link').getAttribute('href')).toBe('/api/openapi.json');
  });
});
