import { describe, expect, it } from 'vitest';
import { createNodeRequestSchema, updateNodeRequestSchema, type NodeView } from '@svc/contracts';
import { zodValidate } from '../../forms/zod-form.js';
import {
  editValuesFrom,
  emptyCreateValues,
  localizeFormErrors,
  markEmptyRequired,
  portFrom,
  toCreateRequest,
  toUpdateRequest,
  type CreateNodeValues,
} from './node-form.js';

const validateCreate = zodValidate(createNodeRequestSchema, (values: CreateNodeValues) =>
  toCreateRequest(values),
);

function node(overrides: Partial<NodeView> = {}): NodeView {
  return {
    nodeId: 'node-play-1',
    serviceType: 'svc-play-agent',
    name: 'Player',
    scope: 'EXTERNAL',
    status: 'ONLINE',
    lastHeartbeatAt: null,
    disabled: false,
    expectedHost: '10.0.0.7',
    expectedPort: 19090,
    listenPort: 19090,
    note: '',
    externalAddress: null,
    tokens: { nodeToken: 'svc_nt_…abcd', registryToken: 'svc_rt_…wxyz', endpointToken: null },
    probe: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    ...overrides,
  };
}

describe('portFrom', () => {
  it('reads empty as not given and digits as a number', () => {
    expect(portFrom('')).toBeUndefined();
    expect(portFrom('  ')).toBeUndefined();
    expect(portFrom(443)).toBe(443);
    expect(portFrom('8080')).toBe(8080);
    expect(portFrom('80a')).toBe('80a');
  });
});

describe('toCreateRequest', () => {
  it('sends a storage node without empty optional fields, and the schema accepts it', () => {
    const values = { ...emptyCreateValues('svc-control-storage'), name: 'Disk A', expectedHost: '10.0.0.5' };
    const body = toCreateRequest(values);
    expect(body).toEqual({ serviceType: 'svc-control-storage', name: 'Disk A', expectedHost: '10.0.0.5' });
    expect(createNodeRequestSchema.safeParse(body).success).toBe(true);
  });

  it('keeps a listen port for play-agents only', () => {
    const values = {
      ...emptyCreateValues('svc-play-agent'),
      nodeId: ' node-player_1 ',
      name: 'P',
      expectedHost: 'play.example.com',
      listenPort: 19091,
      externalAddress: { protocol: 'https' as const, host: 'play.example.com', port: '' },
    };
    expect(toCreateRequest(values)).toEqual({
      serviceType: 'svc-play-agent',
      nodeId: 'node-player_1',
      name: 'P',
      expectedHost: 'play.example.com',
      listenPort: 19091,
      externalAddress: { protocol: 'https', host: 'play.example.com' },
    });
    const storage = toCreateRequest({ ...values, serviceType: 'svc-control-storage' });
    expect(storage).not.toHaveProperty('listenPort');
    expect(createNodeRequestSchema.safeParse(storage).success).toBe(true);
  });

  it('sends a manual address with https and only the fields it takes', () => {
    const values = {
      ...emptyCreateValues('manual-play-agent-endpoint'),
      name: 'Proxy',
      expectedHost: 'ignored.example.com',
      listenPort: 1234,
      externalAddress: { protocol: 'http' as const, host: 'media.example.com', port: 8443 },
    };
    const body = toCreateRequest(values);
    expect(body).toEqual({
      serviceType: 'manual-play-agent-endpoint',
      name: 'Proxy',
      externalAddress: { protocol: 'https', host: 'media.example.com', port: 8443 },
    });
    expect(createNodeRequestSchema.safeParse(body).success).toBe(true);
  });

  it('puts schema errors on the form paths, node id included', () => {
    const errors = validateCreate({
      ...emptyCreateValues('svc-play-agent'),
      nodeId: 'bad id',
      name: 'P',
      expectedHost: 'not a host',
      listenPort: 70000,
      externalAddress: { protocol: 'https', host: 'x..y', port: '' },
    });
    expect(Object.keys(errors).sort()).toEqual([
      'expectedHost',
      'externalAddress.host',
      'listenPort',
      'nodeId',
    ]);
  });
});

describe('toUpdateRequest', () => {
  it('is empty when nothing changed', () => {
    const current = node({
      externalAddress: { protocol: 'https', host: 'a.example.com', port: null, url: 'x' },
    });
    expect(toUpdateRequest(current, editValuesFrom(current))).toEqual({});
  });

  it('sends only the changed fields, a cleared port as null (the default)', () => {
    const current = node();
    const body = toUpdateRequest(current, {
      ...editValuesFrom(current),
      name: 'New',
      expectedPort: '',
      listenPort: 19095,
    });
    expect(body).toEqual({ name: 'New', expectedPort: null, listenPort: 19095 });
    expect(updateNodeRequestSchema.safeParse(body).success).toBe(true);
  });

  it('removes the external address of a worker when the host is cleared, and sets a new one', () => {
    const current = node({
      externalAddress: { protocol: 'http', host: 'a.example.com', port: 80, url: 'x' },
    });
    const cleared = editValuesFrom(current);
    cleared.externalAddress.host = '';
    expect(toUpdateRequest(current, cleared)).toEqual({ externalAddress: null });
    const changed = editValuesFrom(current);
    changed.externalAddress.port = 8080;
    expect(toUpdateRequest(current, changed)).toEqual({
      externalAddress: { protocol: 'http', host: 'a.example.com', port: 8080 },
    });
  });

  it('does not offer host and ports of a built-in node', () => {
    const current = node({ scope: 'EMBEDDED' });
    const body = toUpdateRequest(current, {
      ...editValuesFrom(current),
      expectedHost: 'other.example.com',
      listenPort: 1,
      note: 'n',
    });
    expect(body).toEqual({ note: 'n' });
  });

  it('keeps a manual address https and never removes it', () => {
    const current = node({
      serviceType: 'manual-play-agent-endpoint',
      expectedHost: null,
      expectedPort: null,
      listenPort: null,
      externalAddress: { protocol: 'https', host: 'm.example.com', port: null, url: 'https://m.example.com' },
    });
    const values = editValuesFrom(current);
    values.externalAddress.host = '';
    const body = toUpdateRequest(current, values);
    expect(body).toEqual({ externalAddress: { protocol: 'https', host: '', port: null } });
    expect(updateNodeRequestSchema.safeParse(body).success).toBe(false);
  });
});

describe('localizeFormErrors', () => {
  it('translates the schemas’ own sentences and keeps zod’s', () => {
    const errors = localizeFormErrors(
      {
        nodeId: 'node id must match node-[A-Za-z0-9_-]{3,60}',
        expectedHost: 'host must be a domain name or an IPv4 address',
        name: 'Too small',
      },
      (key) => `<${key}>`,
    );
    expect(errors).toEqual({
      nodeId: '<form.nodeIdPattern>',
      expectedHost: '<form.hostInvalid>',
      name: 'Too small',
    });
  });
});

describe('markEmptyRequired', () => {
  it('says "required" for empty fields with an error and leaves the rest', () => {
    const values = { name: ' ', expectedHost: 'bad host', externalAddress: { host: '' }, note: '' };
    const errors = { name: 'Too small', expectedHost: 'pattern', 'externalAddress.host': 'pattern' };
    expect(
      markEmptyRequired(errors, values, ['name', 'expectedHost', 'externalAddress.host', 'note'], 'Required'),
    ).toEqual({
      name: 'Required',
      expectedHost: 'pattern',
      'externalAddress.host': 'Required',
    });
    expect(markEmptyRequired({}, values, ['name'], 'Required')).toEqual({});
  });
});
