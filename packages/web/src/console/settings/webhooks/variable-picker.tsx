import { useState } from 'react';
import { Button, Code, Popover, ScrollArea, Stack, Text, NavLink } from '@mantine/core';
import { IconBraces } from '@tabler/icons-react';
import type { OutboundWebhookVariable } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { variableDescriptionKey } from './webhooks-messages.js';

/**
 * The template variables (the server's list of 26) with their descriptions; picking one hands its token
 * to `onPick`, which puts it at the cursor of the template field that last had focus (`targetLabel`).
 */
export function VariablePicker({
  variables,
  targetLabel,
  onPick,
}: {
  variables: readonly OutboundWebhookVariable[];
  targetLabel: string;
  onPick: (token: string) => void;
}) {
  const { t } = useTranslation('webhooks');
  const [opened, setOpened] = useState(false);
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" width={420} shadow="md" withinPortal>
      <Popover.Target>
        <Button
          variant="light"
          size="xs"
          leftSection={<IconBraces size={14} />}
          onClick={() => setOpened((open) => !open)}
          data-testid="webhook-variable-picker"
        >
          {t('variables.insert')}
        </Button>
      </Popover.Target>
      <Popover.Dropdown p="xs">
        <Text size="xs" c="dimmed" mb={6} data-testid="webhook-variable-target">
          {t('variables.into', { field: targetLabel })}
        </Text>
        <ScrollArea.Autosize mah={360} type="auto">
          <Stack gap={2} role="list" aria-label={t('variables.title')}>
            {variables.map((variable, index) => (
              <div key={variable.name} role="listitem">
                {(index === 0 || variables[index - 1]!.group !== variable.group) && (
                  <Text size="xs" fw={700} tt="uppercase" c="dimmed" mt={index === 0 ? 0 : 'xs'}>
                    {t(`variables.groups.${variable.group}`, { defaultValue: variable.group })}
                  </Text>
                )}
                <NavLink
                  component="button"
                  type="button"
                  px={6}
                  py={4}
                  label={<Code>{variable.token}</Code>}
                  description={t(variableDescriptionKey(variable.name), {
                    defaultValue: variable.description,
                  })}
                  data-testid="webhook-variable-option"
                  data-variable={variable.name}
                  onClick={() => {
                    onPick(variable.token);
                    setOpened(false);
                  }}
                />
              </div>
            ))}
          </Stack>
        </ScrollArea.Autosize>
      </Popover.Dropdown>
    </Popover>
  );
}
