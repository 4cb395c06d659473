import { Radio, Stack } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { useTranslation } from 'react-i18next';

/**
 * The mode question of an access form (node or library access): one radio a mode, each with its label and
 * help from `<messages>.modes.<MODE>` and `…_help`, the question from `<messages>.mode`.
 */
export function AccessModeRadios({
  input,
  modes,
  messages,
  readOnly,
  testId,
}: {
  /** `form.getInputProps('mode')`. */
  input: GetInputPropsReturnType;
  modes: readonly string[];
  messages: string;
  readOnly: boolean;
  /** The group's test id; each radio's is `<testId>-<MODE>`. */
  testId: string;
}) {
  const { t } = useTranslation('users');
  return (
    <Radio.Group label={t(`${messages}.mode`)} {...input} data-testid={testId}>
      <Stack gap="sm" mt="xs">
        {modes.map((mode) => (
          <Radio
            key={mode}
            value={mode}
            disabled={readOnly}
            label={t(`${messages}.modes.${mode}`)}
            description={t(`${messages}.modes.${mode}_help`)}
            data-testid={`${testId}-${mode}`}
          />
        ))}
      </Stack>
    </Radio.Group>
  );
}
