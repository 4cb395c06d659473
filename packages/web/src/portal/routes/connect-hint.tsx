import { Alert, List } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** What to type into an Emby-compatible app: server address, the user's own name and password. */
export function ConnectHint({ username }: { username: string }) {
  const { t } = useTranslation('myRoutes');
  return (
    <Alert
      color="blue"
      variant="light"
      icon={<IconInfoCircle size={18} />}
      title={t('howTitle')}
      data-testid="connect-hint"
    >
      <List size="sm" spacing={4}>
        <List.Item>{t('howServer')}</List.Item>
        <List.Item>{t('howSplit')}</List.Item>
        <List.Item>{t('howUser', { username })}</List.Item>
        <List.Item>{t('howPassword')}</List.Item>
      </List>
    </Alert>
  );
}
