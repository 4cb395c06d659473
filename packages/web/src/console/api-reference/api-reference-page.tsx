import { useDeferredValue, useMemo, useState } from 'react';
import { Accordion, Anchor, Badge, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { endpointPath } from '../../api/endpoint-client.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { registerMessages } from '../../i18n/i18n.js';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { apiReferenceMessages } from './api-reference-messages.js';
import { filterOperations, operationsByTag, type JsonObject } from './openapi-model.js';
import { OperationItem } from './operation-card.js';

registerMessages('apiReference', apiReferenceMessages);

/** The reference itself: a search box and the operations by tag (also what the unit test renders). */
export function ApiReference({ document }: { document: JsonObject }) {
  const { t } = useTranslation('apiReference');
  const [search, setSearch] = useState('');
  const deferred = useDeferredValue(search);
  const tags = useMemo(() => operationsByTag(document), [document]);
  const shown = useMemo(() => filterOperations(tags, deferred), [tags, deferred]);
  return (
    <Stack gap="md">
      <TextInput
        label={t('search')}
        placeholder={t('searchPlaceholder')}
        leftSection={<IconSearch size={16} />}
        value={search}
        onChange={(event) => setSearch(event.currentTarget.value)}
        w={{ base: '100%', sm: 420 }}
        data-testid="api-search"
      />
      {shown.length === 0 && (
        <Text c="dimmed" data-testid="api-no-match">
          {t('noMatch')}
        </Text>
      )}
      {shown.map((tag) => (
        <Stack key={tag.name} gap="xs" data-testid="api-tag" data-tag={tag.name}>
          <Group gap="sm">
            <Title order={2} size="h4">
              {tag.name}
            </Title>
            <Badge variant="light" color="gray">
              {t('operations', { count: tag.operations.length })}
            </Badge>
          </Group>
          {tag.description && (
            <Text size="sm" c="dimmed">
              {tag.description}
            </Text>
          )}
          <Accordion variant="separated" multiple>
            {tag.operations.map((operation) => (
              <OperationItem key={operation.id} operation={operation} />
            ))}
          </Accordion>
        </Stack>
      ))}
    </Stack>
  );
}

export default function ApiReferencePage() {
  const { t } = useTranslation('apiReference');
  // The document changes only with the program, so it is read once per visit of the app.
  const query = useEndpointQuery(endpoints.gateway.getOpenApiDocument, {}, { staleTime: Infinity });
  return (
    <>
      <PageHeader title={t('common:nav.apiReference')} timeZoneNote={false} />
      <Stack gap={4} mb="md">
        <Text size="sm">{t('intro')}</Text>
        <Anchor
          href={endpointPath(endpoints.gateway.getOpenApiDocument)}
          target="_blank"
          size="sm"
          data-testid="api-document-link"
        >
          {t('openDocument')}
        </Anchor>
      </Stack>
      <QueryState query={query} skeletonRows={8}>
        {(document) => <ApiReference document={document} />}
      </QueryState>
    </>
  );
}
