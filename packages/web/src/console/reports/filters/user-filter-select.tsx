import { useState } from 'react';
import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../../api/endpoint-hooks.js';

export interface UserChoice {
  id: string;
  name: string;
}

/**
 * The single-user filter: a searchable list of accounts (user management's search), keeping the chosen
 * one in its list while other names are searched.
 */
export function UserFilterSelect({
  value,
  onChange,
}: {
  value: UserChoice | null;
  onChange: (choice: UserChoice | null) => void;
}) {
  const { t } = useTranslation('reports');
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const users = useEndpointQuery(
    endpoints.user.listUsers,
    { query: { page: 1, pageSize: 20, search: debounced || undefined } },
    { keepPrevious: true },
  );
  const options = (users.data?.items ?? []).map((user) => ({ value: user.id, label: user.username }));
  if (value && !options.some((option) => option.value === value.id)) {
    options.unshift({ value: value.id, label: value.name });
  }
  return (
    <Select
      label={t('filters.user')}
      placeholder={t('filters.allUsers')}
      data={options}
      value={value?.id ?? null}
      searchable
      clearable
      // Mantine hides the clear button from the keyboard and screen readers by default.
      clearButtonProps={{ 'aria-label': t('filters.clearUser'), 'aria-hidden': false, tabIndex: 0 }}
      searchValue={search}
      onSearchChange={setSearch}
      nothingFoundMessage={t('common:noData')}
      onChange={(id, option) => onChange(id ? { id, name: option?.label ?? id } : null)}
      data-testid="filter-user"
      w={{ base: '100%', sm: 200 }}
    />
  );
}
