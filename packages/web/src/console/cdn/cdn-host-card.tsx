import { useState } from 'react';
import { Button, Card, Group, Stack, Text, Textarea, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { endpoints, type CdnHostStatus } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { formatDateTime } from '../../i18n/format.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { CdnMeasurementsTable } from './cdn-measurements-table.js';

const lines = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);

/** One CDN host of the node: primary address, pool, last measurements and its manual addresses. */
export function CdnHostCard({ nodeId, host }: { nodeId: string; host: CdnHostStatus }) {
  const { t } = useTranslation('cdn');
  const [preferred, setPreferred] = useState(host.manualPreferredIps.join('\n'));
  const [candidates, setCandidates] = useState(host.manualCandidateIps.join('\n'));
  const save = useEndpointMutation(
    (call, _: void) =>
      call(endpoints.nodeCdn.setNodeCdnManual, {
        params: { nodeId },
        body: { host: host.host, preferredIps: lines(preferred), candidateIps: lines(candidates) },
      }),
    [endpoints.nodeCdn.getNodeCdnStatus],
  );
  return (
    <Card withBorder data-testid={`cdn-host-${host.host}`}>
      <Stack gap="xs">
        <Title order={2} size="h4">
          {host.host}
        </Title>
        <Text data-testid="cdn-primary">
          {host.primaryIp ? t('host.primary', { ip: host.primaryIp }) : t('host.noPrimary')}
        </Text>
        <Text size="sm" c="dimmed">
          {host.lastOptimizedAt
            ? t('host.lastOptimized', { time: formatDateTime(host.lastOptimizedAt) })
            : t('host.never')}
          {' · '}
          {t('host.switches', { count: host.switches })}
        </Text>
        {host.sampleKnown ? null : (
          <Text size="sm" c="dimmed">
            {t('host.sampleUnknown')}
          </Text>
        )}
        {host.lastError ? (
          <Text size="sm" c="red">
            {t('host.error', { error: host.lastError })}
          </Text>
        ) : null}
        <Title order={3} size="h5">
          {t('host.pool')}
        </Title>
        {host.preferredPool.length === 0 ? (
          <Text c="dimmed">{t('host.emptyPool')}</Text>
        ) : (
          <CdnMeasurementsTable rows={host.preferredPool} testId="cdn-pool" />
        )}
        {host.lastMeasurements.length > 0 ? (
          <>
            <Title order={3} size="h5">
              {t('host.measurements')}
            </Title>
            <CdnMeasurementsTable rows={host.lastMeasurements} testId="cdn-measurements" />
          </>
        ) : null}
        <Title order={3} size="h5">
          {t('manual.title', { host: host.host })}
        </Title>
        <Group grow align="flex-start">
          <Textarea
            label={t('manual.preferred')}
            description={t('manual.preferredHelp')}
            value={preferred}
            onChange={(event) => setPreferred(event.currentTarget.value)}
            autosize
            minRows={2}
          />
          <Textarea
            label={t('manual.candidates')}
            description={t('manual.candidatesHelp')}
            value={candidates}
            onChange={(event) => setCandidates(event.currentTarget.value)}
            autosize
            minRows={2}
          />
        </Group>
        {save.error ? <ErrorAlert error={save.error} /> : null}
        <Group justify="flex-end">
          <Button
            loading={save.isPending}
            onClick={() =>
              save.mutate(undefined, {
                onSuccess: () => notifications.show({ color: 'green', message: t('manual.saved') }),
              })
            }
          >
            {t('manual.save')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
