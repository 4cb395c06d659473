import { useMemo } from 'react';
import { useComputedColorScheme, useMantineTheme } from '@mantine/core';
import type { ChartPalette } from './chart-options.js';

/** Chart colours from the Mantine palette, lighter shades on the dark scheme so they stand out. */
export function useChartPalette(): ChartPalette {
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  return useMemo(() => {
    const shade = dark ? 4 : 6;
    const { indigo, teal, orange, gray } = theme.colors;
    return {
      series: [indigo[shade], teal[shade], orange[shade]],
      heat: dark ? [theme.colors.dark[5], indigo[3]] : [gray[0], indigo[8]],
    };
  }, [theme, dark]);
}
