import { useCallback, useRef, useState } from 'react';
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
 */
export function useTemplateTarget(form: UseFormReturnType<WebhookFormValues>) {
  const elements = useRef(new Map<string, TemplateElement>());
  const focused = useRef(new Set<string>());
  const [target, setTarget] = useState<TemplateTarget>({ field: 'body' });

  const bind = useCallback((next: TemplateTarget) => {
    const key = templateTargetKey(next);
    return {
      ref: (element: TemplateElement | null) => {
        if (element) elements.current.set(key, element);
        else elements.current.delete(key);
      },
      onFocus: () => {
        focused.current.add(key);
        setTarget(next);
      },
    };
  }, []);

  const insert = (token: string) => {
    const { path, key, text: current } = resolveTemplateTarget(target, form.values);
    const element = elements.current.get(key);
    const known = focused.current.has(key) && element !== undefined;
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
