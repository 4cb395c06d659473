import type { FocusEvent } from 'react';
import { ActionIcon, Button, Checkbox, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { IconPlus, IconX } from '@tabler/icons-react';
import { OUTBOUND_WEBHOOK_MASK } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { newRow, type KeyValueField, type WebhookFormValues } from './webhook-form.js';
import { MONOSPACE_INPUT } from './template-input-styles.js';

/** What a template input needs to take part in variable insertion (see useTemplateTarget). */
export type TemplateBinding = (target: { field: KeyValueField; rowId: string }) => {
  onFocus: (event: FocusEvent<HTMLInputElement | HTMLTextAreaElement>) => void;
};

/** The query parameter or header table: rows of key, value (a template) and the "sensitive" mark. */
export function KeyValueTable({
  form,
  field,
  bindTemplate,
}: {
  form: UseFormReturnType<WebhookFormValues>;
  field: KeyValueField;
  bindTemplate: TemplateBinding;
}) {
  const { t } = useTranslation('webhooks');
  const rows = form.values[field];
  const label = field === 'query' ? t('form.query') : t('form.headers');
  const keyLabel = field === 'query' ? t('form.key') : t('form.headerName');
  return (
    <Stack gap={4} data-testid={`webhook-${field}`}>
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <Button
          variant="subtle"
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() => form.insertListItem(field, newRow())}
          data-testid={`webhook-${field}-add`}
        >
          {field === 'query' ? t('form.addQuery') : t('form.addHeader')}
        </Button>
      </Group>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('form.noRows')}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table verticalSpacing={4} horizontalSpacing={4} withRowBorders={false}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w="32%">{keyLabel}</Table.Th>
                <Table.Th>{t('form.value')}</Table.Th>
                <Table.Th w={90}>{t('form.sensitive')}</Table.Th>
                <Table.Th w={40} />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row, index) => {
                const valueProps = form.getInputProps(`${field}.${index}.value`);
                const binding = bindTemplate({ field, rowId: row.rowId });
                return (
                  <Table.Tr key={row.rowId} data-testid={`webhook-${field}-row`}>
                    <Table.Td style={{ verticalAlign: 'top' }}>
                      <TextInput
                        aria-label={`${keyLabel} ${index + 1}`}
                        data-testid={`webhook-${field}-key`}
                        {...form.getInputProps(`${field}.${index}.key`)}
                      />
                    </Table.Td>
                    <Table.Td style={{ verticalAlign: 'top' }}>
                      <TextInput
                        aria-label={`${t('form.value')} ${index + 1}`}
                        data-testid={`webhook-${field}-value`}
                        data-masked={row.value === OUTBOUND_WEBHOOK_MASK || undefined}
                        styles={MONOSPACE_INPUT}
                        {...valueProps}
                        onFocus={(event) => {
                          (valueProps.onFocus as ((e: typeof event) => void) | undefined)?.(event);
                          binding.onFocus(event);
                          // The mask stands for the saved secret: typing replaces it as a whole.
                          if (event.currentTarget.value === OUTBOUND_WEBHOOK_MASK)
                            event.currentTarget.select();
                        }}
                      />
                    </Table.Td>
                    <Table.Td style={{ verticalAlign: 'top', paddingTop: 10 }}>
                      <Checkbox
                        aria-label={`${t('form.sensitive')} ${index + 1}`}
                        data-testid={`webhook-${field}-sensitive`}
                        {...form.getInputProps(`${field}.${index}.sensitive`, { type: 'checkbox' })}
                      />
                    </Table.Td>
                    <Table.Td style={{ verticalAlign: 'top' }}>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        mt={4}
                        aria-label={t('form.removeRow', { index: index + 1 })}
                        onClick={() => form.removeListItem(field, index)}
                        data-testid={`webhook-${field}-remove`}
                      >
                        <IconX size={16} />
                      </ActionIcon>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {rows.some((row) => row.sensitive) && (
        <Text size="xs" c="dimmed">
          {t('form.sensitiveHint', { mask: OUTBOUND_WEBHOOK_MASK })}
        </Text>
      )}
    </Stack>
  );
}
