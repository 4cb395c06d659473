import { Badge, type BadgeProps } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A badge in a table cell. Mantine's badge label may shrink to an ellipsis, and narrow auto-sized table
 * columns shrink it to nothing ("P…"); this one is never narrower than its text.
 */
export function TableBadge(props: BadgeProps & { children: ReactNode; 'data-testid'?: string }) {
  return <Badge {...props} style={{ minWidth: 'max-content' }} />;
}
