import { Alert, Group, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/session.js';
import { RetentionCard } from '../reports/retention/retention-card.js';
import { TakesEffect, UnsavedBadge } from './setting-card.js';
import { useDirtyMirror } from './use-dirty-mirror.js';

/**
 * The activity log's retention, the report page's own card (its endpoint needs the report or user
 * permission), with this page's marker of unsaved changes and when a change takes effect.
 */
export function RetentionSection({ onDirtyChange }: { onDirtyChange: (dirty: boolean) => void }) {
  const { t } = useTranslation('settings');
  const session = useSession();
  const [dirty, report] = useDirtyMirror(onDirtyChange);
  if (!session.can('reports') && !session.can('user')) {
    return (
      <Alert color="gray" variant="light" data-testid="retention-not-allowed">
        {t('retention.notAllowed')}
      </Alert>
    );
  }
  return (
    <Stack gap={6} data-testid="card-retention" data-dirty={dirty}>
      <Group justify="space-between" gap="xs" wrap="wrap">
        <TakesEffect scope="nextCleanup" testId="retention-scope" />
        {dirty && <UnsavedBadge testId="retention-unsaved" />}
      </Group>
      <RetentionCard onDirtyChange={report} />
    </Stack>
  );
}
