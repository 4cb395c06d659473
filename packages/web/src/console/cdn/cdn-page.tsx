import { useState } from 'react';
import { Anchor, Button, Card, Group, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowLeft } from '@tabler/icons-react';
import { endpoints, type CdnMeasurement, type CdnStatus } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { useEndpointMutation, useEndpointQuery } from '../../api/endpoint-hooks.js';
import { registerMessages } from '../../i18n/i18n.js';
import { useSession } from '../../session/session.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { CdnHostCard } from './cdn-host-card.js';
import { latencyText, throughputText } from './cdn-measurements-table.js';
import { cdnMessages } from './cdn-messages.js';

registerMessages('cdn', cdnMessages);

/** DRIVE_B CDN preference of one play-agent node (/console/cache/:nodeId/cdn; permission `cache`). */
export function NodeCdnPage() {
  const { t } = useTranslation('cdn');
  const { nodeId = '' } = useParams();
  const mayReadNode = useSession().can('node');
  const node = useEndpointQuery(endpoints.config.getNode, { params: { nodeId } }, { enabled: mayReadNode });
  const status = useEndpointQuery(
    endpoints.nodeCdn.getNodeCdnStatus,
    { params: { nodeId } },
    { refetchInterval: 15_000 },
  );
  return (
    <>
      <Anchor
        component={Link}
        to={`/console/cache/${encodeURIComponent(nodeId)}`}
        size="sm"
        mb="xs"
        display="inline-flex"
        style={{ alignItems: 'center', gap: 4 }}
      >
        <IconArrowLeft size={14} /> {t('back')}
      </Anchor>
      <PageHeader title={t('title', { name: node.data?.name ?? nodeId })} timeZoneNote={false} />
      <QueryState query={status} skeletonRows={6}>
        {(loaded) => (
          <Stack>
            <Text>{t('intro', { seconds: loaded.intervalSeconds })}</Text>
            <EnabledSwitch nodeId={nodeId} enabled={loaded.enabled} />
            <Text size="sm" c="dimmed">
              {t('resolvers', { list: loaded.resolvers.join(', ') })}
            </Text>
            <ProbeCard nodeId={nodeId} />
            <MeasureCard nodeId={nodeId} status={loaded} />
            {loaded.hosts.length === 0 ? (
              <Text c="dimmed" data-testid="cdn-no-hosts">
                {t('noHosts')}
              </Text>
            ) : (
              loaded.hosts.map((host) => (
                <CdnHostCard
                  key={`${host.host}:${host.manualPreferredIps.join(',')}:${host.manualCandidateIps.join(',')}`}
                  nodeId={nodeId}
                  host={host}
                />
              ))
            )}
          </Stack>
        )}
      </QueryState>
    </>
  );
}

/** The node's cache-configuration switch `cdn.enabled`. */
function EnabledSwitch({ nodeId, enabled }: { nodeId: string; enabled: boolean }) {
  const { t } = useTranslation('cdn');
  const save = useEndpointMutation(
    (call, next: boolean) =>
      call(endpoints.nodeCache.updateNodeCacheConfig, {
        params: { nodeId },
        body: { cdn: { enabled: next } },
      }),
    [endpoints.nodeCdn.getNodeCdnStatus, endpoints.nodeCache.getNodeCacheConfig],
  );
  return (
    <Stack gap={4}>
      <Switch
        label={t('enabled')}
        checked={enabled}
        disabled={save.isPending}
        data-testid="cdn-enabled-switch"
        onChange={(event) =>
          save.mutate(event.currentTarget.checked, {
            onSuccess: () => notifications.show({ color: 'green', message: t('enabledSaved') }),
          })
        }
      />
      {save.error ? <ErrorAlert error={save.error} /> : null}
    </Stack>
  );
}

function ProbeCard({ nodeId }: { nodeId: string }) {
  const { t } = useTranslation('cdn');
  const [host, setHost] = useState('');
  const probe = useEndpointMutation(
    (call, _: void) =>
      call(endpoints.nodeCdn.probeNodeCdn, {
        params: { nodeId },
        body: host.trim() ? { host: host.trim() } : {},
      }),
    [endpoints.nodeCdn.getNodeCdnStatus],
  );
  return (
    <Card withBorder data-testid="cdn-probe">
      <Stack gap="xs">
        <Title order={2} size="h4">
          {t('probe.title')}
        </Title>
        <TextInput
          label={t('probe.host')}
          description={t('probe.hostHelp')}
          value={host}
          onChange={(event) => setHost(event.currentTarget.value)}
        />
        {probe.error ? <ErrorAlert error={probe.error} /> : null}
        <Group justify="flex-end">
          <Button
            loading={probe.isPending}
            onClick={() =>
              probe.mutate(undefined, {
                onSuccess: () => notifications.show({ color: 'green', message: t('probe.done') }),
              })
            }
          >
            {t('probe.submit')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function MeasureCard({ nodeId, status }: { nodeId: string; status: CdnStatus }) {
  const { t } = useTranslation('cdn');
  const [ip, setIp] = useState('');
  const [host, setHost] = useState<string | null>(status.hosts[0]?.host ?? null);
  const [result, setResult] = useState<CdnMeasurement | null>(null);
  const measure = useEndpointMutation((call, _: void) =>
    call(endpoints.nodeCdn.measureNodeCdnIp, {
      params: { nodeId },
      body: { ip: ip.trim(), ...(host ? { host } : {}) },
    }),
  );
  return (
    <Card withBorder data-testid="cdn-measure">
      <Stack gap="xs">
        <Title order={2} size="h4">
          {t('measure.title')}
        </Title>
        <Group grow align="flex-start">
          <TextInput
            label={t('measure.ip')}
            value={ip}
            onChange={(event) => setIp(event.currentTarget.value)}
          />
          <Select
            label={t('measure.host')}
            data={status.hosts.map((entry) => entry.host)}
            value={host}
            onChange={setHost}
            clearable
          />
        </Group>
        {measure.error ? <ErrorAlert error={measure.error} /> : null}
        {result ? (
          <Text data-testid="cdn-measure-result" c={result.ok ? undefined : 'red'}>
            {result.ok
              ? t('measure.result', {
                  ip: result.ip,
                  latency: latencyText(t, result),
                  throughput: throughputText(t, result),
                })
              : t('measure.resultFailed', { ip: result.ip, error: result.error ?? '' })}
          </Text>
        ) : null}
        <Group justify="flex-end">
          <Button
            loading={measure.isPending}
            onClick={() => {
              setResult(null);
              measure.mutate(undefined, { onSuccess: setResult });
            }}
          >
            {t('measure.submit')}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
