import { useEffect, type CSSProperties, type ReactNode } from 'react';
import { Group, Pagination, Table, Text, type MantineSpacing } from '@mantine/core';
import { pageCount, pageWithinRange } from './paged-table-paging.js';

export interface TableColumn<Row> {
  /** Unique among the table's columns. */
  key: string;
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** 'never' keeps dates and ids on one line (the table scrolls instead); 'anywhere' lets long URLs break. */
  wrap?: 'never' | 'anywhere';
}

/** The server's page of a paged list: the pager and the total under the table. */
export interface TablePaging {
  page: number;
  /** The page size the server answered with. */
  pageSize: number;
  total: number;
  onPageChange: (page: number) => void;
  /** The total in the page's own words ("134 users"). */
  totalText: ReactNode;
}

const WRAP_STYLES: Record<NonNullable<TableColumn<unknown>['wrap']>, CSSProperties> = {
  never: { whiteSpace: 'nowrap' },
  anywhere: { wordBreak: 'break-all' },
};

/**
 * A striped table that scrolls sideways inside its container below `minWidth`, the empty text instead of an
 * empty table, and with `paging` the total and the pager under it. Test ids: `<testId>-table`, `-empty`,
 * `-total` and `-pagination`.
 */
export function PagedTable<Row>({
  columns,
  rows,
  rowKey,
  rowAttributes,
  emptyText,
  minWidth,
  verticalSpacing,
  testId,
  paging,
}: {
  columns: TableColumn<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string | number;
  /** `data-*` attributes of a row's `<tr>` (test ids, the row's id). */
  rowAttributes?: (row: Row) => Record<`data-${string}`, string>;
  emptyText: ReactNode;
  minWidth: number;
  verticalSpacing?: MantineSpacing;
  testId: string;
  paging?: TablePaging;
}) {
  const shownPage = paging ? pageWithinRange(paging.page, paging.total, paging.pageSize) : 1;
  const requestedPage = paging?.page;
  const onPageChange = paging?.onPageChange;
  useEffect(() => {
    if (onPageChange && requestedPage !== undefined && requestedPage !== shownPage) onPageChange(shownPage);
  }, [onPageChange, requestedPage, shownPage]);

  if (rows.length === 0) {
    return (
      <Text c="dimmed" data-testid={`${testId}-empty`}>
        {emptyText}
      </Text>
    );
  }
  return (
    <>
      <Table.ScrollContainer minWidth={minWidth}>
        <Table striped highlightOnHover verticalSpacing={verticalSpacing} data-testid={`${testId}-table`}>
          <Table.Thead>
            <Table.Tr>
              {columns.map((column) => (
                <Table.Th key={column.key}>{column.header}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={rowKey(row)} {...rowAttributes?.(row)}>
                {columns.map((column) => (
                  <Table.Td key={column.key} style={column.wrap ? WRAP_STYLES[column.wrap] : undefined}>
                    {column.cell(row)}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {paging && (
        <Group justify="space-between" mt="md">
          <Text size="sm" c="dimmed" data-testid={`${testId}-total`} data-value={paging.total}>
            {paging.totalText}
          </Text>
          <Pagination
            total={pageCount(paging.total, paging.pageSize)}
            value={shownPage}
            onChange={paging.onPageChange}
            data-testid={`${testId}-pagination`}
          />
        </Group>
      )}
    </>
  );
}
