import type { z } from 'zod';
import { i18next } from '../i18n/i18n.js';
import { formatBytes, formatDateTime, formatNumber } from '../i18n/format.js';

type RawIssue = z.core.$ZodRawIssue;

const say = (key: string, values?: Record<string, unknown>) => i18next.t(`common:validation.${key}`, values);

/** A limit of a number, date or file as the person reads it. */
function limitText(origin: string, limit: unknown): string {
  if (origin === 'date') return formatDateTime(limit as number | Date);
  if (origin === 'file') return formatBytes(Number(limit));
  return typeof limit === 'bigint' ? limit.toString() : formatNumber(Number(limit));
}

/** Nothing was entered: no value at all, or an empty text or number field. */
const isEmpty = (input: unknown) => input === undefined || input === null || input === '';

function tooSmall(issue: Extract<RawIssue, { code: 'too_small' }>): string {
  const min = issue.minimum;
  switch (issue.origin) {
    case 'string':
      if (isEmpty(issue.input)) return say('required');
      if (issue.exact) return say('exactLength', { count: Number(min) });
      return say('tooShort', { min: Number(min) });
    case 'array':
    case 'set':
      return Number(min) === 1 ? say('listEmpty') : say('listTooShort', { min: Number(min) });
    case 'date':
      return say(issue.inclusive === false ? 'dateAfter' : 'dateFrom', { min: limitText('date', min) });
    default:
      return say(issue.inclusive === false ? 'numberAbove' : 'numberMin', {
        min: limitText(issue.origin, min),
      });
  }
}

function tooBig(issue: Extract<RawIssue, { code: 'too_big' }>): string {
  const max = issue.maximum;
  switch (issue.origin) {
    case 'string':
      if (issue.exact) return say('exactLength', { count: Number(max) });
      return say('tooLong', { max: Number(max) });
    case 'array':
    case 'set':
      return say('listTooLong', { max: Number(max) });
    case 'date':
      return say(issue.inclusive === false ? 'dateBefore' : 'dateUntil', { max: limitText('date', max) });
    case 'file':
      return say('fileTooBig', { max: limitText('file', max) });
    default:
      return say(issue.inclusive === false ? 'numberBelow' : 'numberMax', {
        max: limitText(issue.origin, max),
      });
  }
}

const FORMAT_KEYS: Record<string, string> = {
  email: 'email',
  url: 'url',
  regex: 'pattern',
  uuid: 'uuid',
  guid: 'uuid',
  datetime: 'dateTime',
  date: 'date',
  time: 'time',
  ipv4: 'ipAddress',
  ipv6: 'ipAddress',
  cidrv4: 'ipRange',
  cidrv6: 'ipRange',
};

function invalidFormat(issue: Extract<RawIssue, { code: 'invalid_format' }>): string {
  if (issue.format === 'starts_with') return say('startsWith', { prefix: issue['prefix'] });
  if (issue.format === 'ends_with') return say('endsWith', { suffix: issue['suffix'] });
  if (issue.format === 'includes') return say('includes', { includes: issue['includes'] });
  const key = FORMAT_KEYS[issue.format];
  return key ? say(key) : say('format', { format: issue.format });
}

const TYPE_KEYS: Record<string, string> = {
  number: 'expectNumber',
  int: 'expectWholeNumber',
  bigint: 'expectWholeNumber',
  string: 'expectText',
  boolean: 'expectChoice',
  date: 'dateTime',
};

function invalidType(issue: Extract<RawIssue, { code: 'invalid_type' }>): string {
  if (isEmpty(issue.input)) return say('required');
  const key = TYPE_KEYS[issue.expected];
  return key ? say(key) : say('invalid');
}

const quoted = (value: unknown) => (typeof value === 'string' ? `“${value}”` : String(value));

function invalidValue(issue: Extract<RawIssue, { code: 'invalid_value' }>): string {
  if (isEmpty(issue.input)) return say('required');
  const values = issue.values.map(quoted);
  return values.length === 1
    ? say('mustBe', { value: values[0] })
    : say('oneOf', { values: values.join(say('choiceSeparator')) });
}

/**
 * The web app's zod error map: every kind of issue as a sentence for people in the interface language,
 * naming the limit ("Enter at least 8 characters"), instead of zod's schema wording ("Too small: expected
 * string to have >=8 characters"). A message a schema sets itself is kept (see schema-messages.ts).
 */
export function readableIssue(issue: RawIssue): string {
  switch (issue.code) {
    case 'too_small':
      return tooSmall(issue);
    case 'too_big':
      return tooBig(issue);
    case 'invalid_format':
      return invalidFormat(issue);
    case 'invalid_type':
      return invalidType(issue);
    case 'invalid_value':
      return invalidValue(issue);
    case 'not_multiple_of':
      return say('multipleOf', { divisor: formatNumber(Number(issue.divisor)) });
    case 'unrecognized_keys':
      return say('unknownFields', { keys: issue.keys.join(', ') });
    default:
      return say('invalid');
  }
}
