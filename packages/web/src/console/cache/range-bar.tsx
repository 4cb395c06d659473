import { Box, Tooltip } from '@mantine/core';
import type { VfsItem } from '@svc/contracts';
import { useTranslation } from 'react-i18next';

const COLORS = {
  head: 'var(--mantine-color-blue-6)',
  middle: 'var(--mantine-color-grape-5)',
  tail: 'var(--mantine-color-teal-6)',
};

/** The cached byte ranges of one file drawn over its length: head, middle and tail in their own colours. */
export function RangeBar({ entry }: { entry: VfsItem }) {
  const { t } = useTranslation('cache');
  const total = Math.max(1, entry.totalBytes);
  return (
    <Box
      pos="relative"
      h={8}
      w="100%"
      bg="var(--mantine-color-default-border)"
      style={{ borderRadius: 4, overflow: 'hidden' }}
      data-testid="range-bar"
    >
      {entry.ranges.map((range) => (
        <Tooltip key={`${range.start}-${range.end}`} label={t(`entries.ranges.${range.part}`)}>
          <Box
            pos="absolute"
            top={0}
            h="100%"
            bg={COLORS[range.part]}
            style={{
              left: `${(range.start / total) * 100}%`,
              width: `${Math.max(0.5, ((range.end - range.start + 1) / total) * 100)}%`,
            }}
          />
        </Tooltip>
      ))}
    </Box>
  );
}
