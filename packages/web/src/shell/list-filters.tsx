import { useState } from 'react';
import { Select, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';

const PAGE_SIZES = ['20', '50', '100'];

/** The page and page size of a filtered list; changing a filter or the size starts again on page 1. */
export function useListPaging() {
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState('20');
  const refiltered =
    <T,>(apply: (value: T) => void) =>
    (value: T) => {
      apply(value);
      setPage(1);
    };
  return { page, setPage, pageSize, setPageSize: refiltered(setPageSize), refiltered };
}

/** A free-text filter of a list (the caller debounces what it sends). */
export function SearchFilter({
  label,
  placeholder,
  value,
  onChange,
  width,
  testId,
}: {
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  width: number;
  testId: string;
}) {
  return (
    <TextInput
      label={label}
      placeholder={placeholder}
      leftSection={<IconSearch size={16} />}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      w={{ base: '100%', sm: width }}
      data-testid={testId}
    />
  );
}

/** How many rows a page of the list shows: 20, 50 or 100. */
export function PageSizeSelect({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <Select
      label={label}
      data={PAGE_SIZES}
      value={value}
      onChange={(chosen) => onChange(chosen ?? '20')}
      allowDeselect={false}
      w={110}
    />
  );
}
