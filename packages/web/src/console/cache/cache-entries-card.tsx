import { useState } from 'react';
import {
  Badge,
  Button,
  Card,
  Group,
  Pagination,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { endpoints, VFS_ITEM_SORTS, type VfsDeleteRequest, type VfsItem } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation, useEndpointQuery } from '../../api/endpoint-hooks.js';
import { formatBytes, formatDateTime } from '../../i18n/format.js';
import { ConfirmDialog } from '../../shell/confirm-dialog.js';
import { QueryState } from '../../shell/query-state.js';
import { DeleteIconButton } from '../../shell/row-action-icons.js';
import { RangeBar } from './range-bar.js';

const PAGE_SIZE = 20;
const BADGE_COLORS = {
  SMART_READY: 'green',
  CACHE_FAILED: 'red',
  BASIC_HEAD_TAIL: 'blue',
  PLAYING: 'orange',
};

type Sort = (typeof VFS_ITEM_SORTS)[number];
type Pending = { kind: 'one'; entry: VfsItem } | { kind: 'all' } | null;

/** The node's video cache entries: search, grouping, sorting, paging and deletion. */
export function CacheEntriesCard({ nodeId }: { nodeId: string }) {
  const { t } = useTranslation('cache');
  const [keywordInput, setKeywordInput] = useState('');
  const [keyword] = useDebouncedValue(keywordInput.trim(), 300);
  const [groupByEpisodes, setGroup] = useState(false);
  const [sort, setSort] = useState<Sort>('lastAccess');
  const [order, setOrder] = useState<'asc' | 'desc'>('desc');
  const [page, setPage] = useState(1);
  const [pending, setPending] = useState<Pending>(null);
  const query = useEndpointQuery(
    endpoints.nodeCache.listNodeVfsItems,
    {
      params: { nodeId },
      query: { page, pageSize: PAGE_SIZE, groupByEpisodes, sort, order, ...(keyword ? { keyword } : {}) },
    },
    { keepPrevious: true },
  );
  const remove = useEndpointMutation(
    (call, body: VfsDeleteRequest) =>
      call(endpoints.nodeCache.deleteNodeVfsItems, { params: { nodeId }, body }),
    [endpoints.nodeCache.listNodeVfsItems, endpoints.nodeCache.getNodeCacheDiskUsage],
  );
  const confirm = () => {
    if (!pending) return;
    const body: VfsDeleteRequest = pending.kind === 'all' ? { all: true } : { entryId: pending.entry.id };
    remove.mutate(body, {
      onSuccess: (result) => {
        setPending(null);
        notifications.show({ color: 'green', message: t('entries.deleted', result) });
      },
    });
  };
  const reset =
    <T,>(setter: (value: T) => void) =>
    (value: T) => {
      setter(value);
      setPage(1);
    };

  return (
    <Card withBorder data-testid="cache-entries">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            {t('entries.title')}
          </Title>
          <Button color="red" variant="light" onClick={() => setPending({ kind: 'all' })}>
            {t('entries.deleteAll')}
          </Button>
        </Group>
        <Group align="end" gap="sm">
          <TextInput
            label={t('entries.keyword')}
            value={keywordInput}
            onChange={(event) => reset(setKeywordInput)(event.currentTarget.value)}
          />
          <Select
            label={t('entries.sort')}
            data={VFS_ITEM_SORTS.map((value) => ({ value, label: t(`entries.sorts.${value}`) }))}
            value={sort}
            onChange={(value) => value && reset(setSort)(value)}
            allowDeselect={false}
          />
          <SegmentedControl
            data={(['desc', 'asc'] as const).map((value) => ({ value, label: t(`entries.order.${value}`) }))}
            value={order}
            onChange={(value) => reset(setOrder)(value)}
          />
          <Switch
            label={t('entries.group')}
            checked={groupByEpisodes}
            onChange={(event) => reset(setGroup)(event.currentTarget.checked)}
          />
        </Group>
        <QueryState query={query} skeletonRows={4}>
          {(list) =>
            list.rows.length === 0 ? (
              <Text c="dimmed" data-testid="cache-entries-empty">
                {t('entries.empty')}
              </Text>
            ) : (
              <Stack gap="xs">
                <Table>
                  <Table.Tbody>
                    {list.rows.flatMap((row) => [
                      ...(row.entries.length > 1 || row.key.startsWith('series:')
                        ? [
                            <Table.Tr key={row.key}>
                              <Table.Td colSpan={3}>
                                <Text fw={600}>{row.name}</Text>
                                <Text size="xs" c="dimmed">
                                  {t('entries.cached', {
                                    cached: formatBytes(row.cachedBytes),
                                    total: formatBytes(row.totalBytes),
                                  })}
                                </Text>
                              </Table.Td>
                            </Table.Tr>,
                          ]
                        : []),
                      ...row.entries.map((entry) => (
                        <Table.Tr key={entry.id} data-testid="cache-entry">
                          <Table.Td style={{ overflowWrap: 'anywhere' }}>
                            <Group gap="xs">
                              <Text size="sm">{entry.name}</Text>
                              <Badge color={BADGE_COLORS[entry.badge]} variant="light">
                                {t(`entries.badges.${entry.badge}`)}
                              </Badge>
                            </Group>
                            <Text size="xs" c="dimmed">
                              {t('entries.cached', {
                                cached: formatBytes(entry.cachedBytes),
                                total: formatBytes(entry.totalBytes),
                              })}{' '}
                              · {t('entries.lastAccess', { time: formatDateTime(entry.lastAccessAt) })}
                            </Text>
                          </Table.Td>
                          <Table.Td w="35%">
                            <RangeBar entry={entry} />
                          </Table.Td>
                          <Table.Td w={40}>
                            <DeleteIconButton
                              ariaLabel={t('entries.delete', { name: entry.name })}
                              onClick={() => setPending({ kind: 'one', entry })}
                              testId="cache-entry-delete"
                            />
                          </Table.Td>
                        </Table.Tr>
                      )),
                    ])}
                  </Table.Tbody>
                </Table>
                {list.total > list.pageSize ? (
                  <Pagination total={Math.ceil(list.total / list.pageSize)} value={page} onChange={setPage} />
                ) : null}
              </Stack>
            )
          }
        </QueryState>
      </Stack>
      <ConfirmDialog
        opened={pending !== null}
        title={pending?.kind === 'all' ? t('entries.deleteAllTitle') : t('entries.deleteTitle')}
        message={
          pending?.kind === 'one'
            ? t('entries.deleteBody', { name: pending.entry.name })
            : t('entries.deleteAllBody')
        }
        onConfirm={confirm}
        onClose={() => {
          setPending(null);
          remove.reset();
        }}
        loading={remove.isPending}
        error={remove.error}
      />
    </Card>
  );
}
