import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { QueryState } from '../../shell/query-state.js';
import { SettingCard, type SettingScope } from './setting-card.js';
import { useDirtyMirror } from './use-dirty-mirror.js';

/**
 * A setting card whose form needs the saved value first: a skeleton or the error while it loads, then the
 * form, given the callback for its dirty flag (which the card marks and passes on to the page).
 */
export function LoadedSettingCard<T>({
  query,
  skeletonRows,
  onDirtyChange,
  children,
  ...frame
}: {
  id: string;
  title: string;
  help?: string;
  scope: SettingScope;
  query: UseQueryResult<T, unknown>;
  skeletonRows: number;
  onDirtyChange: (dirty: boolean) => void;
  children: (saved: T, onDirtyChange: (dirty: boolean) => void) => ReactNode;
}) {
  const [dirty, report] = useDirtyMirror(onDirtyChange);
  return (
    <SettingCard {...frame} dirty={dirty}>
      <QueryState query={query} skeletonRows={skeletonRows}>
        {(saved) => children(saved, report)}
      </QueryState>
    </SettingCard>
  );
}
