import { useCallback, useRef, useState, type FocusEvent } from 'react';
import type { UseFormReturnType } from '@mantine/form';
import {
  insertAtCursor,
  resolveTemplateTarget,
  templateTargetKey,
  type TemplateTarget,
} from './template-cursor.js';
import type { WebhookFormValues } from './webhook-form.js';

type TemplateElement = HTMLInputElement | HTMLTextAreaElement;

/**
 * Remembers which template field (URL, body, a query or header value) last had focus and where its cursor
 * was, so the variable picker can insert there although clicking the picker takes the focus away. A field
 * that was never focused gets the variable appended. The body is the target until another field is used.
 * Fields are known by their focus events (the element focused), so no ref is read while rendering.
 */
export function useTemplateTarget(form: UseFormReturnType<WebhookFormValues>) {
  const focused = useRef(new Map<string, TemplateElement>());
  const [target, setTarget] = useState<TemplateTarget>({ field: 'body' });

  const bind = useCallback((next: TemplateTarget) => {
    const key = templateTargetKey(next);
    return {
      onFocus: (event: FocusEvent<TemplateElement>) => {
        focused.current.set(key, event.currentTarget);
        setTarget(next);
      },
    };
  }, []);

  const insert = (token: string) => {
    const { path, key, text: current } = resolveTemplateTarget(target, form.values);
    const candidate = focused.current.get(key);
    // A removed row's element is gone from the page.
    const element = candidate?.isConnected ? candidate : undefined;
    const known = element !== undefined;
    const { text, cursor } = insertAtCursor(
      current,
      token,
      known ? element.selectionStart : null,
      known ? element.selectionEnd : null,
    );
    form.setFieldValue(path, text);
    requestAnimationFrame(() => {
      element?.focus();
      element?.setSelectionRange(cursor, cursor);
    });
  };

  return { target, bind, insert };
}
