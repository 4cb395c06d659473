import { Accordion, Badge, Code, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { BodyView, OperationView } from './openapi-model.js';
import { SchemaBody } from './schema-view.js';

const METHOD_COLOURS: Record<string, string> = {
  GET: 'blue',
  POST: 'green',
  PUT: 'orange',
  PATCH: 'yellow',
  DELETE: 'red',
};

export function MethodBadge({ method }: { method: string }) {
  return (
    <Badge color={METHOD_COLOURS[method] ?? 'gray'} variant="filled" w={72} data-testid="method-badge">
      {method}
    </Badge>
  );
}

function Bodies({ bodies }: { bodies: BodyView[] }) {
  const { t } = useTranslation('apiReference');
  if (bodies.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {t('noBody')}
      </Text>
    );
  return (
    <Stack gap="xs">
      {bodies.map((body) => (
        <Stack key={body.mediaType} gap={4}>
          <Text size="xs" c="dimmed">
            {body.mediaType}
          </Text>
          {body.schema && <SchemaBody schema={body.schema} />}
        </Stack>
      ))}
    </Stack>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Stack gap={6}>
      <Title order={4} size="h6">
        {title}
      </Title>
      {children}
    </Stack>
  );
}

/** One operation: the header row (method, path, summary) opens its details. */
export function OperationItem({ operation }: { operation: OperationView }) {
  const { t } = useTranslation('apiReference');
  return (
    <Accordion.Item value={operation.id} data-testid="api-operation" data-operation-id={operation.id}>
      <Accordion.Control>
        <Group gap="sm" wrap="nowrap">
          <MethodBadge method={operation.method} />
          <Text ff="monospace" size="sm" style={{ wordBreak: 'break-all' }}>
            {operation.path}
          </Text>
          <Text size="sm" c="dimmed" visibleFrom="sm" truncate="end">
            {operation.summary}
          </Text>
        </Group>
      </Accordion.Control>
      <Accordion.Panel>
        <Stack gap="md">
          <Text size="sm">{operation.summary}</Text>
          {operation.description && (
            <Text size="sm" c="dimmed">
              {operation.description}
            </Text>
          )}
          <Group gap="lg" wrap="wrap">
            <Text size="sm">
              {t('operationId')}: <Code>{operation.id}</Code>
            </Text>
            <Text size="sm" data-testid="operation-permission">
              {t('permission')}:{' '}
              {operation.permissions.length > 0 ? (
                operation.permissions.map((permission) => <Code key={permission}>{permission}</Code>)
              ) : (
                <Text span c="dimmed">
                  {t('noPermission')}
                </Text>
              )}
            </Text>
            <Text size="sm">
              {t('signIn')}: {operation.security.length > 0 ? operation.security.join(', ') : t('public')}
            </Text>
          </Group>
          {operation.parameters.length > 0 && (
            <Section title={t('parameters')}>
              <Table withTableBorder verticalSpacing={4} data-testid="operation-parameters">
                <Table.Tbody>
                  {operation.parameters.map((parameter) => (
                    <Table.Tr key={`${parameter.in}:${parameter.name}`}>
                      <Table.Td>
                        <Text size="sm" fw={600} ff="monospace">
                          {parameter.name}
                        </Text>
                        <Text size="xs" c="dimmed">
                          {t(`in.${parameter.in}`, { defaultValue: parameter.in })} ·{' '}
                          {t(parameter.required ? 'required' : 'optional')}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <SchemaBody schema={parameter.schema} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Section>
          )}
          {operation.requestBodies.length > 0 && (
            <Section title={t('requestBody')}>
              <Bodies bodies={operation.requestBodies} />
            </Section>
          )}
          <Section title={t('responses')}>
            {operation.responses.map((response) => (
              <Stack key={response.status} gap={4} data-testid="operation-response">
                <Group gap="xs">
                  <Badge variant="light" color={response.status.startsWith('2') ? 'green' : 'red'}>
                    {response.status}
                  </Badge>
                  <Text size="sm">{response.description}</Text>
                </Group>
                {response.status.startsWith('2') && response.bodies.length > 0 && (
                  <Bodies bodies={response.bodies} />
                )}
              </Stack>
            ))}
          </Section>
          {operation.errorCodes.length > 0 && (
            <Section title={t('errorCodes')}>
              <Group gap={6} wrap="wrap" data-testid="operation-errors">
                {operation.errorCodes.map((code) => (
                  <Code key={code}>{code}</Code>
                ))}
              </Group>
            </Section>
          )}
        </Stack>
      </Accordion.Panel>
    </Accordion.Item>
  );
}
