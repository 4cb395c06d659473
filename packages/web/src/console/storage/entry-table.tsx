import { ActionIcon, Anchor, Group, Menu, Table, Text, UnstyledButton } from '@mantine/core';
import {
  IconArrowDown,
  IconArrowUp,
  IconArrowsMove,
  IconCopy,
  IconDotsVertical,
  IconDownload,
  IconFile,
  IconFolder,
  IconPencil,
  IconTrash,
} from '@tabler/icons-react';
import type { StorageEntry } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { formatBytes, formatDateTime } from '../../i18n/format.js';

export type SortKey = 'name' | 'size' | 'mtime';
export interface SortState {
  key: SortKey;
  order: 'asc' | 'desc';
}
export type EntryAction = 'download' | 'rename' | 'copy' | 'move' | 'delete';

function SortHeader({
  label,
  column,
  sort,
  onSort,
}: {
  label: string;
  column: SortKey;
  sort: SortState;
  onSort: (sort: SortState) => void;
}) {
  const active = sort.key === column;
  const Icon = active && sort.order === 'desc' ? IconArrowDown : IconArrowUp;
  return (
    <Table.Th aria-sort={active ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <UnstyledButton
        onClick={() => onSort({ key: column, order: active && sort.order === 'asc' ? 'desc' : 'asc' })}
        data-testid={`sort-${column}`}
      >
        <Group gap={4} wrap="nowrap">
          <Text size="sm" fw={700}>
            {label}
          </Text>
          <Icon size={14} aria-hidden style={{ opacity: active ? 1 : 0.3 }} />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}

/** The entries of one folder page: folders open on click, every entry has its actions. */
export function EntryTable({
  entries,
  sort,
  onSort,
  onOpen,
  onAction,
  downloading,
}: {
  entries: readonly StorageEntry[];
  sort: SortState;
  onSort: (sort: SortState) => void;
  onOpen: (entry: StorageEntry) => void;
  onAction: (action: EntryAction, entry: StorageEntry) => void;
  downloading: string | undefined;
}) {
  const { t } = useTranslation('storage');
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover data-testid="file-table">
        <Table.Thead>
          <Table.Tr>
            <SortHeader label={t('files.name')} column="name" sort={sort} onSort={onSort} />
            <SortHeader label={t('files.size')} column="size" sort={sort} onSort={onSort} />
            <SortHeader label={t('files.modified')} column="mtime" sort={sort} onSort={onSort} />
            <Table.Th>{t('common:actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {entries.map((entry) => (
            <Table.Tr key={entry.path} data-testid="file-row" data-path={entry.path} data-type={entry.type}>
              <Table.Td>
                <Group gap={8} wrap="nowrap">
                  {entry.type === 'dir' ? (
                    <IconFolder size={18} aria-hidden color="var(--mantine-color-yellow-filled)" />
                  ) : (
                    <IconFile size={18} aria-hidden color="var(--mantine-color-dimmed)" />
                  )}
                  {entry.type === 'dir' ? (
                    <Anchor
                      component="button"
                      type="button"
                      onClick={() => onOpen(entry)}
                      style={{ wordBreak: 'break-all', textAlign: 'left' }}
                      data-testid="file-open"
                    >
                      {entry.name}
                    </Anchor>
                  ) : (
                    <Text size="sm" style={{ wordBreak: 'break-all' }}>
                      {entry.name}
                    </Text>
                  )}
                </Group>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                {entry.type === 'dir' ? '—' : formatBytes(entry.size)}
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(entry.mtime)}</Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  {entry.type === 'file' && (
                    <ActionIcon
                      variant="subtle"
                      aria-label={t('files.downloadNamed', { name: entry.name })}
                      onClick={() => onAction('download', entry)}
                      loading={downloading === entry.path}
                      data-testid="entry-download"
                    >
                      <IconDownload size={18} />
                    </ActionIcon>
                  )}
                  <Menu position="bottom-end" withinPortal>
                    <Menu.Target>
                      <ActionIcon
                        variant="subtle"
                        aria-label={t('files.actionsFor', { name: entry.name })}
                        data-testid="entry-menu"
                      >
                        <IconDotsVertical size={18} />
                      </ActionIcon>
                    </Menu.Target>
                    <Menu.Dropdown>
                      <Menu.Item
                        leftSection={<IconPencil size={16} />}
                        onClick={() => onAction('rename', entry)}
                        data-testid="entry-rename"
                      >
                        {t('files.rename')}
                      </Menu.Item>
                      <Menu.Item
                        leftSection={<IconCopy size={16} />}
                        onClick={() => onAction('copy', entry)}
                        data-testid="entry-copy"
                      >
                        {t('files.copy')}
                      </Menu.Item>
                      <Menu.Item
                        leftSection={<IconArrowsMove size={16} />}
                        onClick={() => onAction('move', entry)}
                        data-testid="entry-move"
                      >
                        {t('files.move')}
                      </Menu.Item>
                      <Menu.Divider />
                      <Menu.Item
                        color="red"
                        leftSection={<IconTrash size={16} />}
                        onClick={() => onAction('delete', entry)}
                        data-testid="entry-delete"
                      >
                        {t('common:delete')}
                      </Menu.Item>
                    </Menu.Dropdown>
                  </Menu>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
