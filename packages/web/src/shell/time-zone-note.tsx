import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { DISPLAY_TIME_ZONE, DISPLAY_TIME_ZONE_OFFSET } from '../i18n/format.js';

/** Names the zone the page's times are shown in (every page: one zone, see formatDateTime). */
export function TimeZoneNote() {
  const { t } = useTranslation();
  return (
    <Text size="xs" c="dimmed" data-testid="time-zone-note">
      {t('timeZoneNote', { zone: DISPLAY_TIME_ZONE, offset: DISPLAY_TIME_ZONE_OFFSET })}
    </Text>
  );
}
