import { useEffect, useEffectEvent, useState } from 'react';
import { Alert, Badge, Group, Select, Stack, Tabs, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { endpoints, type PortalItemType } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { readBrowseState, writeBrowseState, type BrowseState } from './browse-params.js';
import { ItemsGrid } from './items-grid.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

const ALL = 'all';
const SEARCH_DEBOUNCE_MS = 300;

/** Libraries as tabs, a search and a type filter above the poster grid; the view lives in the address. */
export function LibraryBrowser() {
  const { t } = useTranslation('myLibraries');
  const [params, setParams] = useSearchParams();
  const state = readBrowseState(params);
  const [searchText, setSearchText] = useState(state.search);
  const [debouncedSearch] = useDebouncedValue(searchText.trim(), SEARCH_DEBOUNCE_MS);
  const libraries = useEndpointQuery(endpoints.media.listMyLibraries, {});

  // Tabs, type and page are history entries (Back returns to them); typing in the search is not.
  const update = (change: Partial<BrowseState>, replace = false) =>
    setParams(writeBrowseState({ ...state, page: 1, ...change }), { replace });

  // The debounced search goes to the address (and so to the query) and starts again at page 1. Only a new
  // debounced value writes; `state` is read from the address on each render.
  const writeSearch = useEffectEvent((search: string) => {
    if (search !== state.search) update({ search }, true);
  });
  useEffect(() => writeSearch(debouncedSearch), [debouncedSearch]);

  // The address changed otherwise (Back, a link): the field follows it, for a new address value only.
  // Values this page wrote itself are skipped, so a key typed meanwhile is never overwritten.
  const [addressSearch, setAddressSearch] = useState(state.search);
  if (state.search !== addressSearch) {
    setAddressSearch(state.search);
    if (state.search !== debouncedSearch) setSearchText(state.search);
  }

  const typeOptions = [
    { value: ALL, label: t('types.all') },
    { value: 'movie', label: t('types.movie') },
    { value: 'series', label: t('types.series') },
  ];
  const grid = <ItemsGrid state={state} backSearch={params.toString()} onPage={(page) => update({ page })} />;

  return (
    <>
      <PageHeader title={t('common:nav.myLibraries')} />
      <QueryState query={libraries} skeletonRows={6}>
        {(data) =>
          data.libraries.length === 0 ? (
            <Alert color="blue" data-testid="libraries-empty">
              {t('noLibraries')}
            </Alert>
          ) : (
            <Stack gap="md">
              <Group gap="sm" align="flex-end">
                <TextInput
                  label={t('searchLabel')}
                  placeholder={t('searchPlaceholder')}
                  leftSection={<IconSearch size={16} />}
                  value={searchText}
                  onChange={(event) => setSearchText(event.currentTarget.value)}
                  w={{ base: '100%', sm: 300 }}
                  data-testid="items-search"
                />
                <Select
                  label={t('typeLabel')}
                  data={typeOptions}
                  value={state.type ?? ALL}
                  onChange={(value) =>
                    update({ type: value === ALL ? null : (value as PortalItemType | null) })
                  }
                  allowDeselect={false}
                  w={{ base: '100%', xs: 180 }}
                  data-testid="items-type"
                />
              </Group>
              <Tabs
                value={state.libraryId ?? ALL}
                onChange={(value) => update({ libraryId: value === ALL || value === null ? null : value })}
                keepMounted={false}
              >
                <Tabs.List data-testid="library-tabs" aria-label={t('libraries')}>
                  <Tabs.Tab value={ALL} data-testid="library-tab-all">
                    {t('all')}
                  </Tabs.Tab>
                  {data.libraries.map((library) => (
                    <Tabs.Tab
                      key={library.id}
                      value={library.id}
                      data-testid="library-tab"
                      rightSection={
                        <Badge size="xs" variant="light" color="gray">
                          {library.itemCount}
                        </Badge>
                      }
                    >
                      {library.name}
                    </Tabs.Tab>
                  ))}
                </Tabs.List>
                <Tabs.Panel value={ALL} pt="md">
                  {grid}
                </Tabs.Panel>
                {data.libraries.map((library) => (
                  <Tabs.Panel key={library.id} value={library.id} pt="md">
                    {grid}
                  </Tabs.Panel>
                ))}
              </Tabs>
            </Stack>
          )
        }
      </QueryState>
    </>
  );
}
