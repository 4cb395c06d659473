import { useState } from 'react';
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconRefresh } from '@tabler/icons-react';
import { endpoints, type WebhookTokenRegenerated, type WebhookTokenStatus } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation, useEndpointQuery } from '../../api/endpoint-hooks.js';
import { formatDateTime } from '../../i18n/format.js';
import { ConfirmDialog } from '../../shell/confirm-dialog.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { QueryState } from '../../shell/query-state.js';
import { CopyableAddress } from './copyable-address.js';
import { inboundWebhookUrl } from './link-urls.js';
import { SettingCard } from './setting-card.js';

const CARD = 'webhookToken';

function TokenStatus({ status }: { status: WebhookTokenStatus }) {
  const { t } = useTranslation('settings');
  if (!status.exists || !status.masked) {
    return (
      <Text size="sm" c="dimmed" data-testid="webhook-token-none">
        {t('webhookToken.none')}
      </Text>
    );
  }
  return (
    <div>
      <Text size="xs" c="dimmed">
        {t('webhookToken.current')}
      </Text>
      <Text ff="monospace" size="sm" style={{ wordBreak: 'break-all' }} data-testid="webhook-token-masked">
        {status.masked}
      </Text>
      {status.createdAt && (
        <Text size="xs" c="dimmed">
          {t('webhookToken.createdAt', { time: formatDateTime(status.createdAt) })}
        </Text>
      )}
    </div>
  );
}

/**
 * The inbound webhook token: masked; regenerating (confirmed) invalidates the old one at once and shows the
 * new one in plain text this one time only (it stays in this component's state, never in a cache).
 */
export function WebhookTokenCard() {
  const { t } = useTranslation('settings');
  const query = useEndpointQuery(endpoints.media.getWebhookToken, {});
  const [confirming, setConfirming] = useState(false);
  const [fresh, setFresh] = useState<WebhookTokenRegenerated | null>(null);
  const regenerate = useEndpointMutation(
    (call) => call(endpoints.media.regenerateWebhookToken),
    [endpoints.media.getWebhookToken],
  );
  const exists = query.data?.exists ?? false;

  const run = () =>
    regenerate.mutate(undefined, {
      onSuccess: (answer) => {
        setConfirming(false);
        setFresh(answer);
        notifications.show({ color: 'green', message: t('webhookToken.done') });
      },
    });

  return (
    <SettingCard id={CARD} title={t('webhookToken.title')} help={t('webhookToken.help')} scope="atOnce">
      <QueryState query={query} skeletonRows={2}>
        {(status) => <TokenStatus status={status} />}
      </QueryState>
      {fresh && (
        <Alert
          color="yellow"
          variant="light"
          icon={<IconAlertTriangle size={18} />}
          data-testid="webhook-token-fresh"
        >
          <Stack gap="sm">
            <Text size="sm" fw={500}>
              {t('webhookToken.once')}
            </Text>
            <CopyableAddress
              label={t('webhookToken.token')}
              value={fresh.token}
              testId="webhook-token-plain"
            />
            <CopyableAddress
              label={t('webhookToken.url')}
              value={inboundWebhookUrl(window.location.origin, fresh.token)}
              testId="webhook-token-url"
            />
          </Stack>
        </Alert>
      )}
      {regenerate.isError && !confirming && <ErrorAlert error={regenerate.error} />}
      <Group justify="flex-end">
        <Button
          variant={exists ? 'default' : 'filled'}
          color={exists ? 'red' : undefined}
          leftSection={<IconRefresh size={16} />}
          disabled={!query.isSuccess}
          onClick={() => (exists ? setConfirming(true) : run())}
          loading={regenerate.isPending && !confirming}
          data-testid="webhook-token-regenerate"
        >
          {exists ? t('webhookToken.regenerate') : t('webhookToken.generate')}
        </Button>
      </Group>
      <ConfirmDialog
        opened={confirming}
        title={t('webhookToken.confirmTitle')}
        message={t('webhookToken.confirmBody')}
        confirmLabel={t('webhookToken.confirm')}
        onConfirm={run}
        onClose={() => {
          setConfirming(false);
          regenerate.reset();
        }}
        loading={regenerate.isPending}
        error={regenerate.error}
      />
    </SettingCard>
  );
}
