import { Group, Pagination, SimpleGrid, Skeleton, Text } from '@mantine/core';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../shell/error-alert.js';
import { itemsQuery, PAGE_SIZE, pageCount, type BrowseState } from './browse-params.js';
import { PosterCard } from './poster-card.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

const GRID_COLS = { base: 2, xs: 3, sm: 4, md: 5, xl: 6 };

/** The poster grid of the titles matching the browser's state, with paging. */
export function ItemsGrid({
  state,
  backSearch,
  onPage,
}: {
  /** What to show; its search is the debounced one. */
  state: BrowseState;
  /** The browser's address query, for the details page's way back. */
  backSearch: string;
  onPage: (page: number) => void;
}) {
  const { t } = useTranslation('myLibraries');
  const query = useEndpointQuery(
    endpoints.media.listMyItems,
    { query: itemsQuery(state) },
    { keepPrevious: true },
  );

  if (query.isPending) {
    return (
      <SimpleGrid cols={GRID_COLS} aria-busy="true" data-testid="loading">
        {Array.from({ length: 12 }, (_, index) => (
          <Skeleton key={index} radius="md" style={{ aspectRatio: '2 / 3.4' }} />
        ))}
      </SimpleGrid>
    );
  }
  if (query.isError) return <ErrorAlert error={query.error} onRetry={() => void query.refetch()} />;

  const { items, total } = query.data;
  if (items.length === 0) {
    return (
      <Text c="dimmed" data-testid="items-empty">
        {t('noItems')}
      </Text>
    );
  }
  const pages = pageCount(total, PAGE_SIZE);
  return (
    <>
      <SimpleGrid
        cols={GRID_COLS}
        data-testid="items-grid"
        style={{ opacity: query.isPlaceholderData ? 0.6 : 1, transition: 'opacity 120ms' }}
      >
        {items.map((item) => (
          <PosterCard key={item.id} item={item} backSearch={backSearch} />
        ))}
      </SimpleGrid>
      <Group justify="space-between" mt="md">
        <Text size="sm" c="dimmed">
          {t('total', { count: total })}
        </Text>
        {pages > 1 && (
          <Pagination
            total={pages}
            value={Math.min(state.page, pages)}
            onChange={onPage}
            data-testid="items-pagination"
            getControlProps={(control) => ({ 'aria-label': t(`pager.${control}`) })}
          />
        )}
      </Group>
    </>
  );
}
