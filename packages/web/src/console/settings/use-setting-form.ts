import { useEffect, useEffectEvent, useState } from 'react';
import { useForm, type FormValidateInput } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import type { EndpointDeclaration, EndpointResponse } from '@svc/contracts';
import type { EndpointCallArgs } from '../../api/endpoint-client.js';
import { useEndpointMutation, type Invalidation } from '../../api/endpoint-hooks.js';
import { sameSetting } from './setting-values.js';

export interface SettingFormOptions<
  E extends EndpointDeclaration,
  V extends object,
  B,
  A = EndpointResponse<E>,
> {
  /** The card's title, named in the notice after a save. */
  title: string;
  /** The PUT that saves the setting; its answer (parsed by the declaration) is the new saved value. */
  endpoint: E;
  /** The value saved on the server now. */
  saved: A;
  toForm: (setting: A) => V;
  /** The request body; edits are compared with the saved value as bodies too. */
  toBody: (values: V) => B;
  /** What is sent when the schema still changes the body (e.g. trims it); `toBody` when not given. */
  toRequest?: (values: V) => B;
  validate?: FormValidateInput<V>;
  /** Cached GETs to fetch again after a save; the setting's own path when not given. */
  invalidates?: readonly Invalidation[];
  /** What else a save changes on the page (e.g. the header's branding). */
  onSaved?: () => void;
  onDirtyChange: (dirty: boolean) => void;
}

/**
 * A card's form and its save: edits are compared with the value saved on the server (as request bodies), the
 * card's dirty flag is reported to the page's guard, and a newer saved value (a refetch) is taken over while
 * the card holds no edits of its own. A save takes the server's answer as the new saved value and says so.
 */
export function useSettingForm<E extends EndpointDeclaration, V extends object, B, A = EndpointResponse<E>>({
  title,
  endpoint,
  saved,
  toForm,
  toBody,
  toRequest = toBody,
  validate,
  invalidates = [endpoint],
  onSaved,
  onDirtyChange,
}: SettingFormOptions<E, V, B, A>) {
  const { t } = useTranslation('settings');
  const form = useForm<V>({ initialValues: toForm(saved), ...(validate ? { validate } : {}) });
  const [baseline, setBaseline] = useState<V>(() => toForm(saved));
  const dirty = !sameSetting(toBody(form.values), toBody(baseline));

  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);
  useEffect(() => () => onDirtyChange(false), [onDirtyChange]);

  const savedBody = JSON.stringify(toBody(toForm(saved)));
  // Runs for a new saved value only; the comparison reads the current edits and baseline.
  const takeOverSaved = useEffectEvent(() => {
    const values = toForm(saved);
    if (!dirty && !sameSetting(toBody(values), toBody(baseline))) markSaved(values);
  });
  useEffect(() => takeOverSaved(), [savedBody]);

  // The body's type is the card's (toBody); the declaration validates it on the server.
  const save = useEndpointMutation(
    (call, body: B) => call(endpoint, ...([{ body }] as unknown as EndpointCallArgs<E>)) as Promise<A>,
    invalidates,
  );

  /** After a save: the server's answer is the new baseline and the form shows it. */
  function markSaved(values: V) {
    setBaseline(values);
    form.setInitialValues(values);
    form.setValues(values);
    form.resetDirty(values);
    form.clearErrors();
  }

  function reset() {
    form.setValues(baseline);
    form.clearErrors();
  }

  const submit = form.onSubmit((values) =>
    save.mutate(toRequest(values), {
      onSuccess: (answer) => {
        markSaved(toForm(answer));
        onSaved?.();
        notifications.show({ color: 'green', message: t('saved', { card: title }) });
      },
    }),
  );

  return { form, dirty, reset, submit, saving: save.isPending, error: save.error };
}

/** What the card's `<form>` and its buttons need of the hook. */
export type SettingFormState = Pick<
  ReturnType<typeof useSettingForm>,
  'form' | 'dirty' | 'reset' | 'submit' | 'saving' | 'error'
>;
