import { useMemo, useState } from 'react';
import { Badge, Group, Pagination, Select, Text } from '@mantine/core';
import { endpoints, type TransferState, transferStateSchema } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../shell/query-state.js';
import { useStorageEndpointQuery } from './storage-query.js';
import { useTransferFeed } from './transfer-feed-context.js';
import type { FeedMode } from './transfer-feed.js';
import { mergeTransferPage } from './transfer-merge.js';
import { TransferTable } from './transfer-table.js';

const PAGE_SIZE = 20;

const MODE_COLORS: Record<FeedMode, string> = { connecting: 'gray', stream: 'green', polling: 'yellow' };

/** How the progress arrives right now: the event stream, or polling while the stream is down. */
export function FeedModeBadge() {
  const { t } = useTranslation('storage');
  const { mode } = useTransferFeed();
  return (
    <Badge color={MODE_COLORS[mode]} variant="dot" data-testid="transfer-feed-mode" data-mode={mode}>
      {t(`transfers.mode.${mode}`)}
    </Badge>
  );
}

export function useMountNames(): ReadonlyMap<string, string> {
  const mounts = useStorageEndpointQuery(endpoints.storage.listMounts, {});
  return useMemo(
    () => new Map((mounts.data?.mounts ?? []).map((mount) => [mount.id, mount.name] as const)),
    [mounts.data],
  );
}

/** Every transfer, newest first, with live progress from the feed. */
export function TransfersTab() {
  const { t } = useTranslation('storage');
  const feed = useTransferFeed();
  const mountNames = useMountNames();
  const [state, setState] = useState<TransferState | undefined>();
  const [page, setPage] = useState(1);
  const query = useStorageEndpointQuery(
    endpoints.storage.listTransfers,
    { query: { page, pageSize: PAGE_SIZE, state } },
    { keepPrevious: true },
  );

  return (
    <>
      <Group justify="space-between" mb="sm" align="flex-end" gap="sm">
        <Select
          label={t('transfers.filter')}
          placeholder={t('transfers.allStates')}
          clearable
          data={transferStateSchema.options.map((value) => ({ value, label: t(`transfers.state.${value}`) }))}
          value={state ?? null}
          onChange={(value) => {
            setState(value ?? undefined);
            setPage(1);
          }}
          w={{ base: '100%', xs: 220 }}
          data-testid="transfer-filter"
        />
        <FeedModeBadge />
      </Group>
      <QueryState query={query} skeletonRows={5}>
        {(data) => {
          const rows = mergeTransferPage(data.items, feed.live, { page, state });
          const pages = Math.max(1, Math.ceil(data.total / data.pageSize));
          return rows.length === 0 ? (
            <Text c="dimmed" data-testid="transfers-empty">
              {t('transfers.empty')}
            </Text>
          ) : (
            <>
              <TransferTable transfers={rows} mountNames={mountNames} />
              {pages > 1 && (
                <Group justify="flex-end" mt="md">
                  <Pagination total={pages} value={page} onChange={setPage} />
                </Group>
              )}
            </>
          );
        }}
      </QueryState>
    </>
  );
}
