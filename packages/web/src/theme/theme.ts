import { createTheme, localStorageColorSchemeManager } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "PingFang SC", "Microsoft YaHei", sans-serif',
});

/** Light or dark, remembered per browser; the first visit follows the system setting. */
export const colorSchemeManager = localStorageColorSchemeManager({ key: 'svc.color-scheme' });
