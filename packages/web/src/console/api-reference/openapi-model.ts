/**
 * Reads the OpenAPI 3.1 document the console entrance serves into what the reference page shows: the
 * operations by tag, and each schema as a tree of named fields (JSON Schema 2020-12, `$ref`s resolved).
 */

export type JsonObject = { readonly [key: string]: unknown };

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface SchemaView {
  /** Readable type: `string`, `integer`, `array of object`, `string | null`, or a component's name. */
  type: string;
  description?: string;
  enumValues?: string[];
  /** Format, bounds, pattern and default, each as `name: value`. */
  constraints: string[];
  fields?: FieldView[];
  /** The alternatives of a union that are not just `null`. */
  variants?: SchemaView[];
}

export interface FieldView {
  name: string;
  required: boolean;
  schema: SchemaView;
}

export interface ParameterView {
  name: string;
  in: string;
  required: boolean;
  schema: SchemaView;
}

export interface BodyView {
  mediaType: string;
  schema?: SchemaView;
}

export interface ResponseView {
  status: string;
  description: string;
  bodies: BodyView[];
}

export interface OperationView {
  id: string;
  method: string;
  path: string;
  summary: string;
  description?: string;
  tag: string;
  permissions: string[];
  /** Names of the security schemes any one of which authorises the call; empty for a public operation. */
  security: string[];
  parameters: ParameterView[];
  requestBodies: BodyView[];
  responses: ResponseView[];
  errorCodes: string[];
}

export interface TagView {
  name: string;
  description?: string;
  operations: OperationView[];
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

/** The object a local `$ref` (`#/components/schemas/Name`) points to. */
function resolvePointer(document: JsonObject, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) ? node[key] : undefined;
  }
  return node;
}

function refName(ref: string): string {
  return ref.split('/').pop() ?? ref;
}

const CONSTRAINT_KEYS = [
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'pattern',
  'default',
] as const;

function constraintsOf(schema: JsonObject): string[] {
  const found: string[] = [];
  for (const key of CONSTRAINT_KEYS) {
    if (schema[key] !== undefined) found.push(`${key}: ${JSON.stringify(schema[key])}`);
  }
  return found;
}

/** Turns one JSON Schema into its view; `seen` holds the `$ref`s being expanded (a cycle stops there). */
export function describeSchema(
  document: JsonObject,
  schema: unknown,
  seen: readonly string[] = [],
): SchemaView {
  if (!isObject(schema)) return { type: 'any', constraints: [] };
  const ref = text(schema['$ref']);
  if (ref) {
    const name = refName(ref);
    if (seen.includes(ref)) return { type: name, constraints: [] };
    const target = describeSchema(document, resolvePointer(document, ref), [...seen, ref]);
    const description = text(schema['description']) ?? target.description;
    return { ...target, ...(description ? { description } : {}) };
  }
  const view: SchemaView = { type: 'any', constraints: constraintsOf(schema) };
  const description = text(schema['description']);
  if (description) view.description = description;

  const union = [schema['anyOf'], schema['oneOf']].find(Array.isArray) as unknown[] | undefined;
  if (union) {
    const nullable = union.some((entry) => isObject(entry) && entry['type'] === 'null');
    const variants = union
      .filter((entry) => !(isObject(entry) && entry['type'] === 'null'))
      .map((entry) => describeSchema(document, entry, seen));
    const only = variants.length === 1 ? variants[0] : undefined;
    if (only) {
      return {
        ...only,
        type: nullable ? `${only.type} | null` : only.type,
        constraints: [...only.constraints, ...view.constraints],
        ...(view.description ? { description: view.description } : {}),
      };
    }
    view.type = variants.map((variant) => variant.type).join(' | ') + (nullable ? ' | null' : '');
    view.variants = variants;
    return view;
  }
  if (Array.isArray(schema['allOf'])) {
    const parts = schema['allOf'].map((entry) => describeSchema(document, entry, seen));
    view.type = 'object';
    view.fields = parts.flatMap((part) => part.fields ?? []);
    return view;
  }

  const enumValues = Array.isArray(schema['enum'])
    ? schema['enum'].map((value) => (typeof value === 'string' ? value : JSON.stringify(value)))
    : schema['const'] !== undefined
      ? [typeof schema['const'] === 'string' ? schema['const'] : JSON.stringify(schema['const'])]
      : undefined;
  if (enumValues) view.enumValues = enumValues;

  const types = Array.isArray(schema['type']) ? strings(schema['type']) : strings([schema['type']]);
  const main = types.filter((type) => type !== 'null');
  const nullable = types.length > main.length ? ' | null' : '';
  const kind = main[0] ?? (isObject(schema['properties']) ? 'object' : enumValues ? 'string' : 'any');

  if (kind === 'object') {
    const required = new Set(strings(schema['required']));
    const properties = isObject(schema['properties']) ? schema['properties'] : {};
    view.fields = Object.entries(properties).map(([name, property]) => ({
      name,
      required: required.has(name),
      schema: describeSchema(document, property, seen),
    }));
    const extra = schema['additionalProperties'];
    if (isObject(extra) && view.fields.length === 0) {
      const value = describeSchema(document, extra, seen);
      view.type = `map of ${value.type}${nullable}`;
      if (value.fields) view.fields = value.fields;
      return view;
    }
  } else if (kind === 'array') {
    const item = describeSchema(document, schema['items'], seen);
    view.type = `array of ${item.type}${nullable}`;
    if (item.fields) view.fields = item.fields;
    if (item.enumValues) view.enumValues = item.enumValues;
    if (item.variants) view.variants = item.variants;
    return view;
  }
  view.type = main.length > 1 ? main.join(' | ') + nullable : kind + nullable;
  return view;
}

function bodiesOf(document: JsonObject, holder: unknown): BodyView[] {
  const content = isObject(holder) && isObject(holder['content']) ? holder['content'] : {};
  return Object.entries(content).map(([mediaType, media]) => {
    const schema = isObject(media) ? media['schema'] : undefined;
    return schema === undefined ? { mediaType } : { mediaType, schema: describeSchema(document, schema) };
  });
}

function deref(document: JsonObject, value: unknown): unknown {
  const ref = isObject(value) ? text(value['$ref']) : undefined;
  return ref ? resolvePointer(document, ref) : value;
}

/** Codes an error answer can carry: an `x-svc-error-codes` list, or the enum of its `error.code` field. */
function errorCodesOf(document: JsonObject, operation: JsonObject, responses: JsonObject): string[] {
  const codes = new Set([...strings(operation['x-svc-error-codes']), ...strings(operation['x-svc-errors'])]);
  for (const [status, raw] of Object.entries(responses)) {
    if (/^2/.test(status)) continue;
    const response = deref(document, raw);
    if (!isObject(response)) continue;
    for (const code of strings(response['x-svc-error-codes'])) codes.add(code);
    for (const body of bodiesOf(document, response)) {
      const code = body.schema?.fields
        ?.find((field) => field.name === 'error')
        ?.schema.fields?.find((field) => field.name === 'code');
      for (const value of code?.schema.enumValues ?? []) codes.add(value);
    }
  }
  return [...codes].sort();
}

function operationOf(
  document: JsonObject,
  path: string,
  method: string,
  operation: JsonObject,
  shared: unknown[],
): OperationView {
  const own: unknown[] = Array.isArray(operation['parameters']) ? operation['parameters'] : [];
  const parameters = [...shared, ...own]
    .map((raw) => deref(document, raw))
    .filter(isObject)
    .map((parameter) => ({
      name: text(parameter['name']) ?? '',
      in: text(parameter['in']) ?? 'query',
      required: parameter['required'] === true,
      schema: describeSchema(document, parameter['schema']),
    }));
  const responses = isObject(operation['responses']) ? operation['responses'] : {};
  const security = Array.isArray(operation['security'])
    ? operation['security']
    : (document['security'] ?? []);
  const description = text(operation['description']);
  return {
    id: text(operation['operationId']) ?? `${method} ${path}`,
    method: method.toUpperCase(),
    path,
    summary: text(operation['summary']) ?? '',
    ...(description ? { description } : {}),
    tag: strings(operation['tags'])[0] ?? '',
    permissions: strings(operation['x-svc-permissions']),
    security: Array.isArray(security)
      ? [...new Set(security.filter(isObject).flatMap((entry) => Object.keys(entry)))]
      : [],
    parameters,
    requestBodies: bodiesOf(document, deref(document, operation['requestBody'])),
    responses: Object.entries(responses).map(([status, raw]) => {
      const response = deref(document, raw);
      return {
        status,
        description: isObject(response) ? (text(response['description']) ?? '') : '',
        bodies: bodiesOf(document, response),
      };
    }),
    errorCodes: errorCodesOf(document, operation, responses),
  };
}

/** Every operation of the document, grouped by its first tag in the document's tag order. */
export function operationsByTag(document: JsonObject): TagView[] {
  const tags = new Map<string, TagView>();
  for (const tag of Array.isArray(document['tags']) ? document['tags'] : []) {
    const name = isObject(tag) ? text(tag['name']) : undefined;
    const description = isObject(tag) ? text(tag['description']) : undefined;
    if (name) tags.set(name, { name, ...(description ? { description } : {}), operations: [] });
  }
  const paths = isObject(document['paths']) ? document['paths'] : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    const shared = Array.isArray(item['parameters']) ? item['parameters'] : [];
    // In the document's order (the generator writes them as declared).
    for (const [method, operation] of Object.entries(item)) {
      if (!(HTTP_METHODS as readonly string[]).includes(method)) continue;
      if (!isObject(operation)) continue;
      const view = operationOf(document, path, method, operation, shared);
      const tag = tags.get(view.tag) ?? { name: view.tag, operations: [] };
      tags.set(view.tag, tag);
      tag.operations.push(view);
    }
  }
  return [...tags.values()].filter((tag) => tag.operations.length > 0);
}

/** The tags with only the operations whose id, path, summary, tag or permission contain every search word. */
export function filterOperations(tags: readonly TagView[], search: string): TagView[] {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...tags];
  return tags
    .map((tag) => ({
      ...tag,
      operations: tag.operations.filter((operation) => {
        const haystack = [
          operation.id,
          operation.method,
          operation.path,
          operation.summary,
          operation.tag,
          ...operation.permissions,
        ]
          .join(' ')
          .toLowerCase();
        return words.every((word) => haystack.includes(word));
      }),
    }))
    .filter((tag) => tag.operations.length > 0);
}
