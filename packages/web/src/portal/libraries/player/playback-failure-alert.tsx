import { Alert, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { PlaybackFailure, StreamProbe } from '../playback/playback-failure.js';

export interface FailureState {
  cause: PlaybackFailure | 'checking';
  probe: StreamProbe | null;
}

/** The cause of a stopped playback, with the play-agent's own answer when it gave one. */
export function PlaybackFailureAlert({ failure, address }: { failure: FailureState; address: string }) {
  const { t } = useTranslation('myLibraries');
  const { probe } = failure;
  const answered = probe?.reachable && probe.status >= 300 ? probe : null;
  return (
    <Alert
      color={failure.cause === 'checking' ? 'gray' : 'red'}
      data-testid="web-player-error"
      data-cause={failure.cause === 'checking' ? undefined : failure.cause}
    >
      <Text size="sm">{t(`playFailure.${failure.cause}`, { address })}</Text>
      {answered && (
        <Text size="xs" c="dimmed" mt={4}>
          {t('playFailure.answered', { status: answered.status, code: answered.code ?? '' })}
          {answered.message ? ` (${answered.message})` : ''}
        </Text>
      )}
    </Alert>
  );
}
