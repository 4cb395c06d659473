import {
  ActionIcon,
  Badge,
  Card,
  Group,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { ErrorAlert } from '../../shell/error-alert.js';
import { TimeZoneNote } from '../../shell/time-zone-note.js';
import { LibraryActions } from './library-actions.js';
import { LibraryItems } from './library-items.js';
import { LibraryCountSummary } from './library-list.js';
import { sourceLabel, useMountLabels } from './mount-labels.js';
import { ScanButton, ScanView } from './scan-view.js';
import { useLibraryScan } from './use-library-scan.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

/** One library: its settings, the storage nodes' probe tools, the scan with live progress, and its items. */
export function LibraryDetail() {
  const { t } = useTranslation('libraries');
  const { libraryId = '' } = useParams();
  const navigate = useNavigate();
  const labels = useMountLabels();
  const query = useEndpointQuery(endpoints.media.getLibrary, { params: { id: libraryId } });
  const library = query.data;
  const scan = useLibraryScan(libraryId, library?.name ?? '', library?.lastScan ?? null);

  return (
    <Stack gap="md">
      <Group justify="space-between" gap="sm">
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          <Tooltip label={t('detail.back')}>
            <ActionIcon
              variant="subtle"
              component={Link}
              to="/console/libraries"
              aria-label={t('detail.back')}
            >
              <IconArrowLeft size={18} />
            </ActionIcon>
          </Tooltip>
          {library ? (
            <Title order={1} size="h2" style={{ wordBreak: 'break-word' }} data-testid="library-title">
              {library.name}
            </Title>
          ) : (
            <Skeleton height={30} width={220} />
          )}
        </Group>
        {library && (
          <Group gap="xs">
            <ScanButton
              onStart={scan.startScan}
              loading={scan.starting}
              disabled={scan.active}
              libraryName={library.name}
            />
            <LibraryActions library={library} onDeleted={() => void navigate('/console/libraries')} />
          </Group>
        )}
      </Group>
      <TimeZoneNote />
      {query.isError && <ErrorAlert error={query.error} onRetry={() => void query.refetch()} />}
      {query.isPending && <Skeleton height={160} />}
      {library && (
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
          <Card withBorder data-testid="library-info">
            <Stack gap="xs">
              <Group gap="xs">
                <Text size="sm" c="dimmed">
                  {t('list.type')}
                </Text>
                <Badge variant="light">{t(`type.${library.type}`)}</Badge>
              </Group>
              <div>
                <Text size="sm" c="dimmed">
                  {t('list.sources')}
                </Text>
                {library.sources.map((source) => (
                  <Text key={source.id} size="sm" style={{ wordBreak: 'break-all' }}>
                    {sourceLabel(source, labels)}
                    <Text span size="xs" c="dimmed">
                      {' '}
                      · {source.nodeId}
                    </Text>
                  </Text>
                ))}
              </div>
              <div>
                <Text size="sm" c="dimmed">
                  {t('list.items')}
                </Text>
                <LibraryCountSummary library={library} />
              </div>
              {library.probeTools.map((tool) => (
                <Text
                  key={tool.nodeId}
                  size="xs"
                  c={tool.available ? 'dimmed' : 'yellow'}
                  data-testid="probe-tool"
                >
                  {tool.available
                    ? t('detail.probeAvailable', { node: tool.nodeId, version: tool.version ?? '' })
                    : t(tool.reachable ? 'scan.noProbe' : 'scan.nodeUnreachable', { node: tool.nodeId })}
                </Text>
              ))}
            </Stack>
          </Card>
          <Card withBorder data-testid="scan-panel">
            <Stack gap="xs">
              <Group justify="space-between">
                <Title order={2} size="h5">
                  {t('scan.title')}
                </Title>
                {scan.pendingTasks > 0 && (
                  <Text size="xs" c="dimmed">
                    {t('scan.pending', { count: scan.pendingTasks })}
                  </Text>
                )}
              </Group>
              <ScanView scan={scan.scan} />
            </Stack>
          </Card>
        </SimpleGrid>
      )}
      <Title order={2} size="h4">
        {t('items.title')}
      </Title>
      <LibraryItems libraryId={libraryId} />
    </Stack>
  );
}
