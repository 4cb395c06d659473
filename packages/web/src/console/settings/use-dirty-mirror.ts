import { useCallback, useState } from 'react';

/**
 * A card's own copy of its form's dirty flag (for the card's marker), passed on to the page's guard. The
 * returned callback is stable while `onDirtyChange` is.
 */
export function useDirtyMirror(onDirtyChange: (dirty: boolean) => void): [boolean, (dirty: boolean) => void] {
  const [dirty, setDirty] = useState(false);
  const report = useCallback(
    (next: boolean) => {
      setDirty(next);
      onDirtyChange(next);
    },
    [onDirtyChange],
  );
  return [dirty, report];
}
