import { useState } from 'react';
import { ActionIcon, Group, Pagination, Select, SimpleGrid, Text, TextInput, Tooltip } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch, IconSortAscending, IconSortDescending } from '@tabler/icons-react';
import {
  endpoints,
  type ItemSort,
  itemSortSchema,
  type MediaItemKind,
  mediaItemKindSchema,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../shell/query-state.js';
import { ItemCard } from './item-card.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

const PAGE_SIZE = 24;

/** The items of a library as poster cards: search, kind, sort and pages. */
export function LibraryItems({ libraryId }: { libraryId: string }) {
  const { t } = useTranslation('libraries');
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [kind, setKind] = useState<MediaItemKind | undefined>();
  const [sort, setSort] = useState<ItemSort>('title');
  const [order, setOrder] = useState<'asc' | 'desc'>('asc');
  const [page, setPage] = useState(1);
  const query = useEndpointQuery(
    endpoints.media.listLibraryItems,
    {
      params: { id: libraryId },
      query: { page, pageSize: PAGE_SIZE, search: debounced || undefined, kind, sort, order },
    },
    { keepPrevious: true },
  );

  return (
    <>
      <Group mb="md" gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          label={t('items.search')}
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(event) => {
            setSearch(event.currentTarget.value);
            setPage(1);
          }}
          w={{ base: '100%', sm: 240 }}
          data-testid="items-search"
        />
        <Select
          label={t('items.kind')}
          placeholder={t('items.topLevel')}
          clearable
          data={mediaItemKindSchema.options.map((value) => ({ value, label: t(`kind.${value}`) }))}
          value={kind ?? null}
          onChange={(value) => {
            setKind(value ? mediaItemKindSchema.parse(value) : undefined);
            setPage(1);
          }}
          w={{ base: '100%', xs: 180 }}
          data-testid="items-kind"
        />
        <Group gap={4} align="flex-end" wrap="nowrap">
          <Select
            label={t('items.sort')}
            data={itemSortSchema.options.map((value) => ({ value, label: t(`items.sortBy.${value}`) }))}
            value={sort}
            onChange={(value) => {
              if (value) setSort(itemSortSchema.parse(value));
              setPage(1);
            }}
            allowDeselect={false}
            w={170}
          />
          <Tooltip label={t(order === 'asc' ? 'items.ascending' : 'items.descending')}>
            <ActionIcon
              variant="default"
              size={36}
              onClick={() => setOrder((current) => (current === 'asc' ? 'desc' : 'asc'))}
              aria-label={t(order === 'asc' ? 'items.ascending' : 'items.descending')}
            >
              {order === 'asc' ? <IconSortAscending size={18} /> : <IconSortDescending size={18} />}
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>
      <QueryState query={query} skeletonRows={6}>
        {(data) => {
          const pages = Math.max(1, Math.ceil(data.total / data.pageSize));
          return data.items.length === 0 ? (
            <Text c="dimmed" data-testid="items-empty">
              {debounced || kind ? t('items.noMatch') : t('items.empty')}
            </Text>
          ) : (
            <>
              <SimpleGrid cols={{ base: 2, xs: 3, sm: 4, lg: 6 }} spacing="sm" data-testid="items-grid">
                {data.items.map((item) => (
                  <ItemCard key={item.id} item={item} />
                ))}
              </SimpleGrid>
              <Group justify="space-between" mt="md">
                <Text size="sm" c="dimmed">
                  {t('items.total', { count: data.total })}
                </Text>
                {pages > 1 && <Pagination total={pages} value={page} onChange={setPage} />}
              </Group>
            </>
          );
        }}
      </QueryState>
    </>
  );
}
