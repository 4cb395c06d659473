import type { KeyValueField, WebhookFormValues } from './webhook-form.js';

/** The text after inserting `token` over the selection [start, end), and where the cursor goes next. */
export interface Insertion {
  text: string;
  cursor: number;
}

/**
 * Puts a variable's token at the cursor of a template field, replacing the selected text if any. A
 * position the field does not know (never focused: null) appends at the end.
 */
export function insertAtCursor(
  text: string,
  token: string,
  selectionStart: number | null,
  selectionEnd: number | null = selectionStart,
): Insertion {
  const clamp = (position: number | null) =>
    position === null || !Number.isFinite(position)
      ? text.length
      : Math.min(Math.max(position, 0), text.length);
  const start = clamp(selectionStart);
  const end = Math.max(start, clamp(selectionEnd));
  return { text: text.slice(0, start) + token + text.slice(end), cursor: start + token.length };
}

/** A template field variables can go into: the URL, the body, or the value of one query or header row. */
export type TemplateTarget = { field: 'url' } | { field: 'body' } | { field: KeyValueField; rowId: string };

export function templateTargetKey(target: TemplateTarget): string {
  return 'rowId' in target ? `${target.field}:${target.rowId}` : target.field;
}

/**
 * Where a target is in the form now: its path (`url`, `body`, `headers.2.value`), its key and its text. A
 * removed row falls back to the body.
 */
export function resolveTemplateTarget(
  target: TemplateTarget,
  values: WebhookFormValues,
): { path: string; key: string; text: string; field: TemplateTarget['field']; rowKey: string } {
  if ('rowId' in target) {
    const index = values[target.field].findIndex((row) => row.rowId === target.rowId);
    if (index >= 0) {
      return {
        path: `${target.field}.${index}.value`,
        key: templateTargetKey(target),
        text: values[target.field][index]!.value,
        field: target.field,
        rowKey: values[target.field][index]!.key,
      };
    }
    return resolveTemplateTarget({ field: 'body' }, values);
  }
  return {
    path: target.field,
    key: target.field,
    text: values[target.field],
    field: target.field,
    rowKey: '',
  };
}
