import type { ReactNode } from 'react';
import { Stack, type MantineSpacing } from '@mantine/core';
import { CardActions } from './setting-card.js';
import type { SettingFormState } from './use-setting-form.js';

/** A card's form: its fields, then the save's error and the card's reset and save. */
export function SettingForm({
  card,
  setting,
  gap = 'sm',
  testId,
  showsSaveError = true,
  children,
}: {
  card: string;
  setting: SettingFormState;
  gap?: MantineSpacing;
  testId?: string;
  /** False when the fields show the save's error themselves (next to their own notices). */
  showsSaveError?: boolean;
  children: ReactNode;
}) {
  return (
    <form noValidate data-testid={testId} onSubmit={setting.submit}>
      <Stack gap={gap}>
        {children}
        <CardActions
          id={card}
          dirty={setting.dirty}
          saving={setting.saving}
          onReset={setting.reset}
          error={showsSaveError ? setting.error : null}
          form={setting.form}
        />
      </Stack>
    </form>
  );
}
