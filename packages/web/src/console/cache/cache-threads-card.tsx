import { useState } from 'react';
import { Badge, Button, Card, Group, NumberInput, Stack, Switch, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { endpoints, VFS_LIMITS, type CacheDrive, type VfsDriveThreads } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation, useEndpointQuery } from '../../api/endpoint-hooks.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { serverFieldErrors } from './cache-form.js';

const MiB = 1024 * 1024;
const DEFAULT_THREADS = 4;
const DEFAULT_CHUNK_BYTES = 4 * MiB;

/** One row of the form: a drive, and its parameters when it has any. */
interface DriveRow {
  drive: CacheDrive | null;
  driveId: string;
  on: boolean;
  threads: number;
  chunkMb: number;
}

/** The drives offered and the stored parameters, as rows (a stored drive no storage node lists comes last). */
export function threadRowsOf(drives: readonly CacheDrive[], stored: readonly VfsDriveThreads[]): DriveRow[] {
  const rows: DriveRow[] = drives.map((drive) => {
    const saved = stored.find((item) => item.driveId === drive.driveId);
    return {
      drive,
      driveId: drive.driveId,
      on: saved !== undefined,
      threads: saved?.threads ?? DEFAULT_THREADS,
      chunkMb: (saved?.chunkSizeBytes ?? DEFAULT_CHUNK_BYTES) / MiB,
    };
  });
  for (const saved of stored) {
    if (rows.some((row) => row.driveId === saved.driveId)) continue;
    rows.push({
      drive: null,
      driveId: saved.driveId,
      on: true,
      threads: saved.threads,
      chunkMb: saved.chunkSizeBytes / MiB,
    });
  }
  return rows;
}

/** The `vfs.driveThreads` the rows stand for (rows switched off have none). */
export function driveThreadsOf(rows: readonly DriveRow[]): VfsDriveThreads[] {
  return rows
    .filter((row) => row.on)
    .map((row) => ({
      driveId: row.driveId,
      threads: row.threads,
      chunkSizeBytes: Math.round(row.chunkMb * MiB),
    }));
}

/**
 * Multithread download per drive (docs/drives.md, docs/vfs-cache.md): for each non-local mount of the
 * storage nodes (WebDAV, DRIVE_A, DRIVE_B), whether the cache fills its files with parallel ranged reads,
 * how many and of what size. Saved on its own (`vfs.driveThreads`), apart from the configuration form.
 */
export function CacheThreadsCard({ nodeId, stored }: { nodeId: string; stored: readonly VfsDriveThreads[] }) {
  const { t } = useTranslation('cache');
  const drives = useEndpointQuery(endpoints.nodeCache.listNodeCacheDrives, { params: { nodeId } });
  const [edited, setEdited] = useState<DriveRow[] | null>(null);
  const rows = edited ?? threadRowsOf(drives.data?.drives ?? [], stored);
  const save = useEndpointMutation(
    (call, driveThreads: VfsDriveThreads[]) =>
      call(endpoints.nodeCache.updateNodeCacheConfig, {
        params: { nodeId },
        body: { vfs: { driveThreads } },
      }),
    [endpoints.nodeCache.getNodeCacheConfig],
  );
  const fieldErrors = save.error ? serverFieldErrors(save.error) : null;
  const change = (driveId: string, patch: Partial<DriveRow>) =>
    setEdited(rows.map((row) => (row.driveId === driveId ? { ...row, ...patch } : row)));
  const errorAt = (index: number, key: string) => {
    const position = driveThreadsOf(rows).findIndex((item) => item.driveId === rows[index]!.driveId);
    return position < 0 ? undefined : fieldErrors?.[`vfs.driveThreads.${position}.${key}`];
  };

  return (
    <Card withBorder data-testid="cache-threads">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('threads.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('threads.intro')}
        </Text>
        {drives.error ? <ErrorAlert error={drives.error} /> : null}
        {drives.data && drives.data.unreachableStorageNodes.length > 0 ? (
          <Text size="sm" c="orange" data-testid="threads-unreachable">
            {t('threads.unreachable', { nodes: drives.data.unreachableStorageNodes.join(', ') })}
          </Text>
        ) : null}
        {drives.isSuccess && rows.length === 0 ? <Text size="sm">{t('threads.none')}</Text> : null}
        {rows.length > 0 ? (
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('threads.drive')}</Table.Th>
                <Table.Th>{t('threads.multithread')}</Table.Th>
                <Table.Th>{t('threads.threads')}</Table.Th>
                <Table.Th>{t('threads.chunkMb')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row, index) => (
                <Table.Tr key={row.driveId} data-testid={`threads-row-${row.driveId}`}>
                  <Table.Td>
                    <Group gap="xs">
                      <Text size="sm">{row.drive?.name ?? t('threads.unknownDrive')}</Text>
                      <Badge variant="light" size="sm">
                        {row.drive ? t(`threads.providers.${row.drive.provider}`) : row.driveId}
                      </Badge>
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Switch
                      aria-label={t('threads.switchFor', { name: row.drive?.name ?? row.driveId })}
                      checked={row.on}
                      onChange={(event) => change(row.driveId, { on: event.currentTarget.checked })}
                    />
                  </Table.Td>
                  <Table.Td>
                    <NumberInput
                      aria-label={t('threads.threadsFor', { name: row.drive?.name ?? row.driveId })}
                      disabled={!row.on}
                      min={VFS_LIMITS.minThreads}
                      max={VFS_LIMITS.maxThreads}
                      allowDecimal={false}
                      value={row.threads}
                      onChange={(value) => change(row.driveId, { threads: Number(value) || 0 })}
                      error={errorAt(index, 'threads')}
                      w={100}
                    />
                  </Table.Td>
                  <Table.Td>
                    <NumberInput
                      aria-label={t('threads.chunkFor', { name: row.drive?.name ?? row.driveId })}
                      disabled={!row.on}
                      min={VFS_LIMITS.minChunkBytes / MiB}
                      max={VFS_LIMITS.maxChunkBytes / MiB}
                      decimalScale={2}
                      value={row.chunkMb}
                      onChange={(value) => change(row.driveId, { chunkMb: Number(value) || 0 })}
                      error={errorAt(index, 'chunkSizeBytes')}
                      w={120}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : null}
        <Text size="xs" c="dimmed">
          {t('threads.limits', {
            minThreads: VFS_LIMITS.minThreads,
            maxThreads: VFS_LIMITS.maxThreads,
            minChunk: VFS_LIMITS.minChunkBytes / MiB,
            maxChunk: VFS_LIMITS.maxChunkBytes / MiB,
          })}
        </Text>
        {save.error && !fieldErrors ? <ErrorAlert error={save.error} /> : null}
        <Group>
          <Button
            disabled={edited === null}
            loading={save.isPending}
            onClick={() =>
              save.mutate(driveThreadsOf(rows), {
                onSuccess: () => {
                  setEdited(null);
                  notifications.show({ color: 'green', message: t('threads.saved') });
                },
              })
            }
            data-testid="threads-save"
          >
            {t('threads.save')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
