import type { NodeServiceType, NodeView } from '@svc/contracts';
import { editableFields } from './node-status.js';

/** A port field as Mantine's NumberInput holds it: a number, or '' (or a half-typed string) while empty. */
export type PortValue = number | string;

export interface AddressValues {
  protocol: 'http' | 'https';
  host: string;
  port: PortValue;
}

/** The create form's values; field paths equal the request's, so the schema's errors land on the right input. */
export interface CreateNodeValues {
  serviceType: NodeServiceType;
  nodeId: string;
  name: string;
  expectedHost: string;
  expectedPort: PortValue;
  listenPort: PortValue;
  note: string;
  externalAddress: AddressValues;
}

export interface EditNodeValues {
  name: string;
  note: string;
  expectedHost: string;
  expectedPort: PortValue;
  listenPort: PortValue;
  externalAddress: AddressValues;
}

export function emptyCreateValues(serviceType: NodeServiceType): CreateNodeValues {
  return {
    serviceType,
    nodeId: '',
    name: '',
    expectedHost: '',
    expectedPort: '',
    listenPort: '',
    note: '',
    externalAddress: { protocol: 'https', host: '', port: '' },
  };
}

/** '' → undefined (not given); a typed number as a number; anything else passed on for the schema to refuse. */
export function portFrom(value: PortValue): number | string | undefined {
  if (typeof value === 'number') return value;
  const text = value.trim();
  if (text === '') return undefined;
  return /^\d+$/.test(text) ? Number(text) : text;
}

function addressFrom(address: AddressValues, protocol: 'http' | 'https' = address.protocol) {
  const port = portFrom(address.port);
  return { protocol, host: address.host, ...(port !== undefined ? { port } : {}) };
}

/**
 * The body of POST /api/config/nodes for the chosen type: only the fields that type takes (the schema is
 * strict), empty optional fields left out so the server applies its defaults. Not validated here: the
 * form checks it with the contracts' createNodeRequestSchema.
 */
export function toCreateRequest(values: CreateNodeValues): Record<string, unknown> {
  const nodeId = values.nodeId.trim();
  const common = {
    serviceType: values.serviceType,
    ...(nodeId ? { nodeId } : {}),
    name: values.name,
    ...(values.note.trim() ? { note: values.note } : {}),
  };
  if (values.serviceType === 'manual-play-agent-endpoint') {
    return { ...common, externalAddress: addressFrom(values.externalAddress, 'https') };
  }
  const expectedPort = portFrom(values.expectedPort);
  const listenPort = portFrom(values.listenPort);
  return {
    ...common,
    expectedHost: values.expectedHost,
    ...(expectedPort !== undefined ? { expectedPort } : {}),
    ...(values.serviceType === 'svc-play-agent' && listenPort !== undefined ? { listenPort } : {}),
    ...(values.externalAddress.host.trim() ? { externalAddress: addressFrom(values.externalAddress) } : {}),
  };
}

/** The edit form's starting values: what the node card shows (effective ports). */
export function editValuesFrom(node: NodeView): EditNodeValues {
  return {
    name: node.name,
    note: node.note,
    expectedHost: node.expectedHost ?? '',
    expectedPort: node.expectedPort ?? '',
    listenPort: node.listenPort ?? '',
    externalAddress: node.externalAddress
      ? {
          protocol: node.externalAddress.protocol,
          host: node.externalAddress.host,
          port: node.externalAddress.port ?? '',
        }
      : { protocol: 'https', host: '', port: '' },
  };
}

function portChange(value: PortValue, current: number | null): number | string | null | undefined {
  const port = portFrom(value);
  if (port === undefined) return current === null ? undefined : null;
  return port === current ? undefined : port;
}

/**
 * The body of PATCH /api/config/nodes/:nodeId: only the fields that changed and that this kind of node
 * may change (built-in nodes: name, note, external address). A cleared port goes back to the default
 * (null); a cleared external address of a worker node removes it (null). Empty when nothing changed.
 */
export function toUpdateRequest(node: NodeView, values: EditNodeValues): Record<string, unknown> {
  const fields = editableFields(node);
  const body: Record<string, unknown> = {};
  if (values.name.trim() !== node.name) body.name = values.name;
  if (values.note !== node.note) body.note = values.note;
  if (fields.expectedAddress) {
    if (values.expectedHost.trim().toLowerCase() !== (node.expectedHost ?? ''))
      body.expectedHost = values.expectedHost;
    const expectedPort = portChange(values.expectedPort, node.expectedPort);
    if (expectedPort !== undefined) body.expectedPort = expectedPort;
  }
  if (fields.listenPort) {
    const listenPort = portChange(values.listenPort, node.listenPort);
    if (listenPort !== undefined) body.listenPort = listenPort;
  }
  const address = values.externalAddress;
  const current = node.externalAddress;
  if (!address.host.trim() && !fields.externalAddressRequired) {
    if (current !== null) body.externalAddress = null;
  } else {
    const protocol = fields.externalAddressRequired ? 'https' : address.protocol;
    const port = portFrom(address.port);
    const same =
      current !== null &&
      current.protocol === protocol &&
      current.host === address.host.trim().toLowerCase() &&
      (current.port ?? undefined) === port;
    if (!same) body.externalAddress = { protocol, host: address.host, port: port ?? null };
  }
  return body;
}

/** Custom (English) messages of the contracts' node schemas, mapped to keys of the `nodes` namespace. */
const SCHEMA_MESSAGE_KEYS: Record<string, string> = {
  'node id must match node-[A-Za-z0-9_-]{3,60}': 'form.nodeIdPattern',
  'host must be a domain name or an IPv4 address': 'form.hostInvalid',
  'at least one field to change': 'form.nothingChanged',
};

/**
 * The form errors with the schema's own English sentences translated (zod's built-in messages already
 * follow the interface language).
 */
export function localizeFormErrors(
  errors: Record<string, string>,
  translate: (key: string) => string,
): Record<string, string> {
  const localized: Record<string, string> = {};
  for (const [path, message] of Object.entries(errors)) {
    const key = SCHEMA_MESSAGE_KEYS[message];
    localized[path] = key ? translate(key) : message;
  }
  return localized;
}

function valueAt(values: unknown, path: string): unknown {
  let current: unknown = values;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * Errors of text fields left empty replaced by "required" (the schemas would say "too small" or quote
 * a pattern); other errors stay as they are.
 */
export function markEmptyRequired(
  errors: Record<string, string>,
  values: unknown,
  paths: readonly string[],
  requiredText: string,
): Record<string, string> {
  const marked = { ...errors };
  for (const path of paths) {
    const value = valueAt(values, path);
    if (marked[path] !== undefined && typeof value === 'string' && value.trim() === '')
      marked[path] = requiredText;
  }
  return marked;
}

/** The text fields a node form requires whenever they are offered. */
export const REQUIRED_NODE_FIELDS = ['name', 'expectedHost', 'externalAddress.host'] as const;
