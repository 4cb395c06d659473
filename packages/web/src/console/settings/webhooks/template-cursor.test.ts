import { describe, expect, it } from 'vitest';
import { DEFAULT_OUTBOUND_WEBHOOK_BODIES } from '@svc/contracts';
import { insertAtCursor, resolveTemplateTarget, templateTargetKey } from './template-cursor.js';
import { emptyWebhookValues, newRow } from './webhook-form.js';

describe('inserting a variable at the cursor', () => {
  it('puts the token at the cursor and moves the cursor behind it', () => {
    expect(insertAtCursor('https://x/?t=', '{{urlencode.media.title}}', 13)).toEqual({
      text: 'https://x/?t={{urlencode.media.title}}',
      cursor: 38,
    });
    expect(insertAtCursor('Hello !', '{{media.title}}', 6)).toEqual({
      text: 'Hello {{media.title}}!',
      cursor: 21,
    });
  });

  it('replaces the selected text', () => {
    expect(insertAtCursor('a TITLE b', '{{media.title}}', 2, 7)).toEqual({
      text: 'a {{media.title}} b',
      cursor: 17,
    });
    // A selection made backwards arrives with end before start: nothing is lost but the selection.
    expect(insertAtCursor('abc', 'X', 2, 1).text).toBe('abXc');
  });

  it('appends when the field was never focused, and clamps positions outside the text', () => {
    expect(insertAtCursor('abc', 'X', null)).toEqual({ text: 'abcX', cursor: 4 });
    expect(insertAtCursor('abc', 'X', 99)).toEqual({ text: 'abcX', cursor: 4 });
    expect(insertAtCursor('abc', 'X', -5)).toEqual({ text: 'Xabc', cursor: 1 });
    expect(insertAtCursor('', '{{event.id}}', 0)).toEqual({ text: '{{event.id}}', cursor: 12 });
  });
});

describe('template targets', () => {
  const values = emptyWebhookValues(DEFAULT_OUTBOUND_WEBHOOK_BODIES);
  values.url = 'http://x/';
  const row = newRow({ key: 'X-Title', value: 'v' });
  values.headers = [newRow({ key: 'A', value: 'a' }), row];

  it('finds the URL, the body and a row by its id (not its position)', () => {
    expect(resolveTemplateTarget({ field: 'url' }, values)).toMatchObject({ path: 'url', text: 'http://x/' });
    expect(resolveTemplateTarget({ field: 'body' }, values).path).toBe('body');
    expect(resolveTemplateTarget({ field: 'headers', rowId: row.rowId }, values)).toEqual({
      path: 'headers.1.value',
      key: templateTargetKey({ field: 'headers', rowId: row.rowId }),
      text: 'v',
      field: 'headers',
      rowKey: 'X-Title',
    });
  });

  it('falls back to the body when the row was removed', () => {
    expect(resolveTemplateTarget({ field: 'query', rowId: 'gone' }, values)).toMatchObject({
      path: 'body',
      key: 'body',
      field: 'body',
    });
  });
});
