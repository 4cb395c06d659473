import {
  ActionIcon,
  Group,
  SegmentedControl,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { IconMoon, IconSun } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { setLanguage, type Language } from '../i18n/i18n.js';

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  return (
    <SegmentedControl
      size="xs"
      aria-label={t('language')}
      data-testid="language-switch"
      value={i18n.language === 'zh' ? 'zh' : 'en'}
      onChange={(value: Language) => setLanguage(value)}
      data={[
        { value: 'en', label: 'EN' },
        { value: 'zh', label: '中文' },
      ]}
    />
  );
}

export function ThemeToggle() {
  const { t } = useTranslation();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const next = scheme === 'dark' ? 'light' : 'dark';
  return (
    <Tooltip label={t(next === 'dark' ? 'themeDark' : 'themeLight')}>
      <ActionIcon
        variant="default"
        size="lg"
        aria-label={t('toggleTheme')}
        data-testid="theme-toggle"
        data-scheme={scheme}
        onClick={() => setColorScheme(next)}
      >
        {scheme === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}

export function HeaderControls() {
  return (
    <Group gap="xs" wrap="nowrap">
      <LanguageSwitch />
      <ThemeToggle />
    </Group>
  );
}
