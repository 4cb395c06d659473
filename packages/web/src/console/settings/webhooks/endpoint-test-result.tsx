import { Alert, Code, Group, Stack, Text } from '@mantine/core';
import type { OutboundWebhookTestResponse } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../../shell/error-alert.js';

/** The outcome of the latest test send: the request failed (error), or what the receiver answered. */
export type TestOutcome =
  { endpointName: string; result: OutboundWebhookTestResponse } | { endpointName: string; error: unknown };

export function EndpointTestResult({ outcome, onClose }: { outcome: TestOutcome; onClose: () => void }) {
  const { t } = useTranslation('webhooks');
  if ('error' in outcome) return <ErrorAlert error={outcome.error} />;
  const { result } = outcome;
  return (
    <Alert
      color={result.ok ? 'green' : 'red'}
      variant="light"
      withCloseButton
      closeButtonLabel={t('common:close')}
      onClose={onClose}
      title={`${t('test.title', { name: outcome.endpointName })}: ${result.ok ? t('test.ok') : t('test.failed')}`}
      data-testid="webhook-test-result"
      data-ok={String(result.ok)}
    >
      <Stack gap={4}>
        <Group gap="lg">
          <Text size="sm">
            {t('test.httpStatus')}:{' '}
            <Text span fw={600} data-testid="webhook-test-http-status">
              {result.httpStatus ?? t('test.noAnswer')}
            </Text>
          </Text>
          <Text size="sm">
            {t('test.duration')}: {t('test.milliseconds', { count: result.durationMs })}
          </Text>
        </Group>
        {result.error && (
          <Text size="sm" data-testid="webhook-test-error" style={{ wordBreak: 'break-word' }}>
            {t('test.error')}: {result.error}
          </Text>
        )}
        {result.responseExcerpt && (
          <>
            <Text size="sm">{t('test.response')}:</Text>
            <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
              {result.responseExcerpt}
            </Code>
          </>
        )}
      </Stack>
    </Alert>
  );
}
