import { z } from 'zod';

/**
 * Zod building blocks of PROTO_A queries and bodies. Emby matches parameter and field names without
 * regard to case (`UserId`, `userId`, `userid`), sends lists comma-separated, repeated or both, and
 * ignores names it does not know: so do these schemas.
 */

/** Values of one name: a query's repeated parameters come as an array. */
const valuesOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * An object schema whose keys are matched case-insensitively: each key of the input is renamed to the
 * shape's key of the same lower case (values of names that differ only in case are gathered, first
 * first). Keys the shape does not name are kept as they are, unvalidated, for the readers of the
 * authorization (stream/authorization.ts) and the dialect (dialect.ts), which read names of their own.
 */
export function caseInsensitiveObject<Shape extends z.ZodRawShape>(shape: Shape) {
  const keyOf = new Map(Object.keys(shape).map((key) => [key.toLowerCase(), key]));
  return z.preprocess((input) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
    const output: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(input)) {
      if (value === undefined) continue;
      const key = keyOf.get(name.toLowerCase()) ?? name;
      output[key] = key in output ? [...valuesOf(output[key]), ...valuesOf(value)] : value;
    }
    return output;
  }, z.looseObject(shape));
}

/** The first non-empty value of a query parameter (a repeated one comes as an array). */
const firstValue = (value: unknown): unknown => {
  if (!Array.isArray(value)) return value === '' ? undefined : value;
  return value.find((item) => item !== '') ?? undefined;
};

/** A query parameter read as text. */
export const queryString = z.preprocess(firstValue, z.string().max(4096).optional());

/** A whole number (`-?digits`, at most 15); routes clamp it to their bounds. */
export const queryInteger = z.preprocess(
  firstValue,
  z
    .string()
    .regex(/^-?\d{1,15}$/, 'must be a whole number')
    .transform(Number)
    .optional(),
);

/** `true`/`1`/`yes` or `false`/`0`/`no`, in any case. */
export const queryBoolean = z.preprocess(
  firstValue,
  z
    .string()
    .regex(/^(true|1|yes|false|0|no)$/i, 'must be true or false')
    .transform((value) => /^(true|1|yes)$/i.test(value))
    .optional(),
);

/** A list: comma-separated, repeated, or both; empty entries dropped. */
export const queryList = z.preprocess(
  (value) =>
    value === undefined
      ? undefined
      : valuesOf(value)
          .filter((item): item is string => typeof item === 'string')
          .flatMap((item) => item.split(','))
          .map((item) => item.trim())
          .filter((item) => item.length > 0),
  z.array(z.string().max(4096)).max(1000).optional(),
);

/** The parameters of the token and client that any route may carry (stream/authorization.ts reads them). */
export const authQueryShape = {
  api_key: queryString,
  ApiKey: queryString,
  'X-Emby-Token': queryString,
  'X-Emby-Client': queryString,
  'X-Emby-Device-Id': queryString,
  'X-Emby-Device-Name': queryString,
  'X-Emby-Client-Version': queryString,
};

/** A route's query: the authorization parameters and the route's own, names case-insensitive. */
export const protocolQuery = <Shape extends z.ZodRawShape>(shape: Shape = {} as Shape) =>
  caseInsensitiveObject({ ...authQueryShape, ...shape });

/** A JSON body field that may be absent or null (null counts as absent unless a route says otherwise). */
export const optional = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** A JSON body of named fields; a request without a body reads as an empty one. */
export const protocolBody = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.preprocess((input) => input ?? {}, caseInsensitiveObject(shape));
