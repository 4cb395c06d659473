import { useState } from 'react';
import {
  ActionIcon,
  Anchor,
  Breadcrumbs,
  Button,
  FileButton,
  Group,
  Pagination,
  Skeleton,
  Stack,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowLeft, IconArrowUp, IconFolderPlus, IconRefresh, IconUpload } from '@tabler/icons-react';
import { endpoints, type StorageEntry } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { useSession } from '../../session/session.js';
import { ErrorAlert, useErrorText } from '../../shell/error-alert.js';
import { QueryState } from '../../shell/query-state.js';
import { DeleteEntryDialog } from './delete-entry-dialog.js';
import { downloadMountFile } from './download.js';
import { EntryTable, type EntryAction, type SortState } from './entry-table.js';
import { breadcrumbs, normaliseMountPath, parentPath } from './mount-path.js';
import { NameModal, type NameAction } from './name-modal.js';
import { useStorageEndpointQuery, useStorageTarget } from './storage-query.js';
import { useTransferFeed } from './transfer-feed-context.js';
import { isActiveTransfer } from './transfer-merge.js';
import { TransferModal, type TransferAction } from './transfer-modal.js';
import { TransferTable } from './transfer-table.js';
import { useMountNames } from './transfers-tab.js';
import { UploadsPanel } from './uploads-panel.js';
import { useUploads } from './uploads-context.js';

const PAGE_SIZE = 100;

/** One mount's files: folders, breadcrumbs, paging and sorting, and every file action. */
export function FileBrowser() {
  const { t } = useTranslation('storage');
  const { mountId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const path = normaliseMountPath(params.get('path') ?? '');
  const { credentials } = useSession();
  const target = useStorageTarget();
  const errorText = useErrorText();
  const uploads = useUploads();
  const feed = useTransferFeed();
  const mountNames = useMountNames();
  const [sort, setSort] = useState<SortState>({ key: 'name', order: 'asc' });
  const [page, setPage] = useState({ path, number: 1 });
  const pageNumber = page.path === path ? page.number : 1;
  const [nameAction, setNameAction] = useState<NameAction | undefined>();
  const [transferAction, setTransferAction] = useState<TransferAction | undefined>();
  const [deleting, setDeleting] = useState<StorageEntry | undefined>();
  const [downloading, setDownloading] = useState<string | undefined>();

  const mount = useStorageEndpointQuery(endpoints.storage.getMount, { params: { mountId } });
  const listing = useStorageEndpointQuery(
    endpoints.storage.browse,
    {
      params: { mountId },
      query: { path, page: pageNumber, pageSize: PAGE_SIZE, sort: sort.key, order: sort.order },
    },
    { keepPrevious: true },
  );
  const mountName = mount.data?.name ?? '';

  const go = (next: string) => setParams(next ? { path: next } : {});

  const onAction = (action: EntryAction, entry: StorageEntry) => {
    if (action === 'rename') setNameAction({ kind: 'rename', entry });
    else if (action === 'delete') setDeleting(entry);
    else if (action === 'copy' || action === 'move') setTransferAction({ kind: action, entry });
    else {
      setDownloading(entry.path);
      downloadMountFile(credentials, target.headers, mountId, entry.path, entry.name)
        .catch((error: unknown) => notifications.show({ color: 'red', message: errorText(error) }))
        .finally(() => setDownloading(undefined));
    }
  };

  const activeHere = [...feed.live.values()]
    .filter(isActiveTransfer)
    .filter((transfer) => transfer.source.mountId === mountId || transfer.target.mountId === mountId);

  return (
    <Stack gap="md">
      <Group justify="space-between" gap="sm">
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          <Tooltip label={t('files.backToMounts')}>
            <ActionIcon
              variant="subtle"
              component={Link}
              to="/console/storage"
              aria-label={t('files.backToMounts')}
            >
              <IconArrowLeft size={18} />
            </ActionIcon>
          </Tooltip>
          {mount.isPending ? (
            <Skeleton height={30} width={200} />
          ) : (
            <Title order={1} size="h2" style={{ wordBreak: 'break-all' }} data-testid="mount-title">
              {mountName || mountId}
            </Title>
          )}
        </Group>
        <Group gap="xs">
          <Button
            variant="default"
            leftSection={<IconFolderPlus size={16} />}
            onClick={() => setNameAction({ kind: 'mkdir', dir: path })}
            data-testid="folder-create"
          >
            {t('files.newFolder')}
          </Button>
          <FileButton
            multiple
            onChange={(files) => uploads.add(mountId, path, files)}
            inputProps={{ 'data-testid': 'upload-input' } as Record<string, string>}
          >
            {(props) => (
              <Button leftSection={<IconUpload size={16} />} {...props} data-testid="upload-button">
                {t('files.upload')}
              </Button>
            )}
          </FileButton>
        </Group>
      </Group>
      {mount.isError && <ErrorAlert error={mount.error} onRetry={() => void mount.refetch()} />}

      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Breadcrumbs
          separator="/"
          separatorMargin={4}
          style={{ flexWrap: 'wrap', minWidth: 0 }}
          data-testid="breadcrumbs"
        >
          {breadcrumbs(path).map((crumb, index, all) =>
            index === all.length - 1 ? (
              <Text key={crumb.path || '/'} size="sm" fw={600} aria-current="page">
                {crumb.name || mountName || '/'}
              </Text>
            ) : (
              <Anchor
                key={crumb.path || '/'}
                component="button"
                type="button"
                size="sm"
                onClick={() => go(crumb.path)}
              >
                {crumb.name || mountName || '/'}
              </Anchor>
            ),
          )}
        </Breadcrumbs>
        <Group gap={4} wrap="nowrap">
          <Tooltip label={t('files.up')}>
            <ActionIcon
              variant="subtle"
              disabled={path === ''}
              onClick={() => go(parentPath(path))}
              aria-label={t('files.up')}
              data-testid="folder-up"
            >
              <IconArrowUp size={18} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('common:refresh')}>
            <ActionIcon
              variant="subtle"
              onClick={() => void listing.refetch()}
              loading={listing.isFetching && !listing.isPending}
              aria-label={t('common:refresh')}
            >
              <IconRefresh size={18} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>

      <UploadsPanel mountId={mountId} />
      {activeHere.length > 0 && <TransferTable transfers={activeHere} mountNames={mountNames} />}

      <QueryState query={listing} skeletonRows={8}>
        {(data) => {
          const pages = Math.max(1, Math.ceil(data.total / data.pageSize));
          return data.entries.length === 0 ? (
            <Text c="dimmed" data-testid="folder-empty">
              {t('files.empty')}
            </Text>
          ) : (
            <>
              <EntryTable
                entries={data.entries}
                sort={sort}
                onSort={(next) => {
                  setSort(next);
                  setPage({ path, number: 1 });
                }}
                onOpen={(entry) => go(entry.path)}
                onAction={onAction}
                downloading={downloading}
              />
              <Group justify="space-between" mt="xs">
                <Text size="sm" c="dimmed">
                  {t('files.total', { count: data.total })}
                </Text>
                {pages > 1 && (
                  <Pagination
                    total={pages}
                    value={pageNumber}
                    onChange={(number) => setPage({ path, number })}
                  />
                )}
              </Group>
            </>
          );
        }}
      </QueryState>

      <NameModal mountId={mountId} action={nameAction} onClose={() => setNameAction(undefined)} />
      <DeleteEntryDialog mountId={mountId} entry={deleting} onClose={() => setDeleting(undefined)} />
      <TransferModal mountId={mountId} action={transferAction} onClose={() => setTransferAction(undefined)} />
    </Stack>
  );
}
