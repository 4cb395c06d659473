import { useState } from 'react';
import {
  Anchor,
  Breadcrumbs,
  Checkbox,
  Group,
  Pagination,
  Paper,
  ScrollArea,
  Stack,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { IconChevronRight, IconFolder } from '@tabler/icons-react';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../shell/query-state.js';
import { breadcrumbs } from './mount-path.js';
import { useStorageEndpointQuery } from './storage-query.js';

const PAGE_SIZE = 200;

export interface FolderSelection {
  isSelected(path: string): boolean;
  toggle(path: string): void;
}

/**
 * Navigates the folders of a mount (files are not shown): breadcrumbs from the root, the subfolders of the
 * current one. With `selection`, each folder — and the current one — has a checkbox.
 */
export function FolderPicker({
  mountId,
  mountName,
  path,
  onPathChange,
  selection,
}: {
  mountId: string;
  mountName: string;
  path: string;
  onPathChange: (path: string) => void;
  selection?: FolderSelection;
}) {
  const { t } = useTranslation('storage');
  const [page, setPage] = useState(1);
  const query = useStorageEndpointQuery(
    endpoints.storage.browse,
    { params: { mountId }, query: { path, page, pageSize: PAGE_SIZE, sort: 'name', order: 'asc' } },
    { keepPrevious: true },
  );
  const open = (next: string) => {
    setPage(1);
    onPathChange(next);
  };

  return (
    <Paper withBorder p="xs" data-testid="folder-picker">
      <Stack gap="xs">
        <Breadcrumbs separator="/" separatorMargin={4} style={{ flexWrap: 'wrap' }}>
          {breadcrumbs(path).map((crumb) => (
            <Anchor
              key={crumb.path || '/'}
              component="button"
              type="button"
              size="sm"
              onClick={() => open(crumb.path)}
              data-testid="folder-crumb"
            >
              {crumb.name || mountName}
            </Anchor>
          ))}
        </Breadcrumbs>
        {selection && (
          <Checkbox
            label={t('picker.thisFolder')}
            checked={selection.isSelected(path)}
            onChange={() => selection.toggle(path)}
            data-testid="folder-select-current"
          />
        )}
        <QueryState query={query} skeletonRows={4}>
          {(data) => {
            const folders = data.entries.filter((entry) => entry.type === 'dir');
            const pages = Math.max(1, Math.ceil(data.total / data.pageSize));
            return (
              <>
                <ScrollArea.Autosize mah={260} type="auto">
                  {folders.length === 0 ? (
                    <Text size="sm" c="dimmed" py="xs">
                      {t('picker.noFolders')}
                    </Text>
                  ) : (
                    <Stack gap={2}>
                      {folders.map((folder) => (
                        <Group key={folder.path} gap="xs" wrap="nowrap" data-testid="folder-row">
                          {selection && (
                            <Checkbox
                              aria-label={t('picker.select', { name: folder.name })}
                              checked={selection.isSelected(folder.path)}
                              onChange={() => selection.toggle(folder.path)}
                              data-testid="folder-select"
                            />
                          )}
                          <UnstyledButton
                            onClick={() => open(folder.path)}
                            style={{ flex: 1, minWidth: 0 }}
                            py={4}
                            aria-label={t('picker.open', { name: folder.name })}
                            data-testid="folder-open"
                          >
                            <Group gap={6} wrap="nowrap">
                              <IconFolder size={18} aria-hidden />
                              <Text size="sm" truncate="end" style={{ flex: 1 }}>
                                {folder.name}
                              </Text>
                              <IconChevronRight size={16} aria-hidden />
                            </Group>
                          </UnstyledButton>
                        </Group>
                      ))}
                    </Stack>
                  )}
                </ScrollArea.Autosize>
                {pages > 1 && <Pagination size="sm" total={pages} value={page} onChange={setPage} />}
              </>
            );
          }}
        </QueryState>
      </Stack>
    </Paper>
  );
}
