import { Badge, Box, Code, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { FieldView, SchemaView } from './openapi-model.js';

/** Type, enum values, constraints and description of one schema (without its fields). */
function SchemaSummary({ schema }: { schema: SchemaView }) {
  const { t } = useTranslation('apiReference');
  return (
    <>
      <Group gap={6} wrap="wrap">
        <Code data-testid="schema-type">{schema.type}</Code>
        {schema.constraints.map((constraint) => (
          <Text key={constraint} size="xs" c="dimmed">
            {constraint}
          </Text>
        ))}
      </Group>
      {schema.enumValues && (
        <Text size="xs" data-testid="schema-enum">
          {t('values')}: {schema.enumValues.join(', ')}
        </Text>
      )}
      {schema.description && (
        <Text size="sm" c="dimmed">
          {schema.description}
        </Text>
      )}
    </>
  );
}

function FieldRow({ field }: { field: FieldView }) {
  const { t } = useTranslation('apiReference');
  return (
    <Box component="li" data-testid="schema-field" data-name={field.name}>
      <Group gap={6} wrap="wrap">
        <Text size="sm" fw={600} ff="monospace">
          {field.name}
        </Text>
        <Badge size="xs" variant="light" color={field.required ? 'red' : 'gray'}>
          {t(field.required ? 'required' : 'optional')}
        </Badge>
      </Group>
      <SchemaBody schema={field.schema} />
    </Box>
  );
}

/** A schema as a readable tree: its summary, then its fields (nested objects indented) or its alternatives. */
export function SchemaBody({ schema }: { schema: SchemaView }) {
  const { t } = useTranslation('apiReference');
  return (
    <Stack gap={4}>
      <SchemaSummary schema={schema} />
      {schema.fields && schema.fields.length > 0 && (
        <Box
          component="ul"
          m={0}
          pl="md"
          style={{ listStyle: 'none', borderLeft: '2px solid var(--mantine-color-default-border)' }}
        >
          <Stack gap="xs">
            {schema.fields.map((field) => (
              <FieldRow key={field.name} field={field} />
            ))}
          </Stack>
        </Box>
      )}
      {schema.variants && (
        <Stack gap={4} pl="md">
          <Text size="xs" fw={600}>
            {t('oneOf')}
          </Text>
          {schema.variants.map((variant, index) => (
            <SchemaBody key={index} schema={variant} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}
