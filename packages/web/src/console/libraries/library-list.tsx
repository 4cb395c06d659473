import { useState } from 'react';
import { Anchor, Badge, Button, Group, Stack, Table, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { endpoints, type Library } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatNumber } from '../../i18n/format.js';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { countParts, topLevelCount } from './item-labels.js';
import { LibraryActions } from './library-actions.js';
import { LibraryFormModal } from './library-form-modal.js';
import { sourceLabel, useMountLabels } from './mount-labels.js';
import { ScanButton, ScanView } from './scan-view.js';
import { useLibraryScan } from './use-library-scan.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

/** The counters of a library: the top-level total and each kind. */
export function LibraryCountSummary({ library }: { library: Library }) {
  const { t } = useTranslation('libraries');
  const parts = countParts(library.counts);
  return (
    <Stack gap={0}>
      <Text size="sm" data-testid="library-item-count">
        {t('list.itemCount', { count: topLevelCount(library.counts) })}
      </Text>
      {parts.length > 0 && (
        <Text size="xs" c="dimmed">
          {parts.map((part) => `${t(`counts.${part.kind}`)} ${formatNumber(part.count)}`).join(' · ')}
        </Text>
      )}
    </Stack>
  );
}

function LibraryRow({ library, labels }: { library: Library; labels: ReadonlyMap<string, string> }) {
  const { t } = useTranslation('libraries');
  const scan = useLibraryScan(library.id, library.name, library.lastScan);
  return (
    <Table.Tr data-testid="library-row" data-library-id={library.id}>
      <Table.Td>
        <Anchor component={Link} to={library.id} fw={500}>
          {library.name}
        </Anchor>
      </Table.Td>
      <Table.Td>
        <Badge variant="light">{t(`type.${library.type}`)}</Badge>
      </Table.Td>
      <Table.Td>
        <Stack gap={0}>
          {library.sources.map((source) => (
            <Text key={source.id} size="xs" style={{ wordBreak: 'break-all' }}>
              {sourceLabel(source, labels)}
            </Text>
          ))}
        </Stack>
      </Table.Td>
      <Table.Td>
        <LibraryCountSummary library={library} />
      </Table.Td>
      <Table.Td data-testid="library-last-scan">
        <ScanView scan={scan.scan} compact />
      </Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <ScanButton
            onStart={scan.startScan}
            loading={scan.starting}
            disabled={scan.active}
            libraryName={library.name}
          />
          <LibraryActions library={library} />
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** Every library with its sources, counters, last scan and actions. */
export function LibraryList() {
  const { t } = useTranslation('libraries');
  const labels = useMountLabels();
  const [creating, setCreating] = useState(false);
  const query = useEndpointQuery(endpoints.media.listLibraries, {});
  return (
    <>
      <PageHeader
        title={t('common:nav.libraries')}
        actions={
          <Button
            leftSection={<IconPlus size={16} />}
            onClick={() => setCreating(true)}
            data-testid="library-create"
          >
            {t('list.create')}
          </Button>
        }
      />
      <QueryState query={query} skeletonRows={5}>
        {(data) =>
          data.libraries.length === 0 ? (
            <Text c="dimmed" data-testid="libraries-empty">
              {t('list.empty')}
            </Text>
          ) : (
            <Table.ScrollContainer minWidth={960}>
              <Table striped highlightOnHover verticalSpacing="sm" data-testid="libraries-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('list.name')}</Table.Th>
                    <Table.Th>{t('list.type')}</Table.Th>
                    <Table.Th>{t('list.sources')}</Table.Th>
                    <Table.Th>{t('list.items')}</Table.Th>
                    <Table.Th w={260}>{t('list.lastScan')}</Table.Th>
                    <Table.Th>{t('common:actions')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.libraries.map((library) => (
                    <LibraryRow key={library.id} library={library} labels={labels} />
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
      <LibraryFormModal opened={creating} onClose={() => setCreating(false)} />
    </>
  );
}
