import { useState } from 'react';
import { Badge, Button, Card, Group, MultiSelect, Stack, Table, Text, Title } from '@mantine/core';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation, useEndpointQuery } from '../../api/endpoint-hooks.js';
import { useSession } from '../../session/session.js';
import { ErrorAlert } from '../../shell/error-alert.js';

/** Copies this node's cache configuration to other play-agents and shows each target's outcome. */
export function CacheSyncCard({ nodeId }: { nodeId: string }) {
  const { t } = useTranslation('cache');
  const mayList = useSession().can('node');
  const nodes = useEndpointQuery(endpoints.config.listNodes, {}, { enabled: mayList });
  const [targets, setTargets] = useState<string[]>([]);
  const sync = useEndpointMutation((call, targetNodeIds: string[]) =>
    call(endpoints.nodeCache.syncNodeCacheConfig, { params: { nodeId }, body: { targetNodeIds } }),
  );
  const others = (nodes.data?.nodes ?? []).filter(
    (node) => node.serviceType === 'svc-play-agent' && node.nodeId !== nodeId,
  );
  const nameOf = (id: string) => others.find((node) => node.nodeId === id)?.name ?? id;
  return (
    <Card withBorder data-testid="cache-sync">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('sync.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('sync.intro')}
        </Text>
        {mayList ? null : <Text size="sm">{t('needNodePermission')}</Text>}
        {nodes.error ? <ErrorAlert error={nodes.error} /> : null}
        {nodes.isSuccess && others.length === 0 ? <Text size="sm">{t('sync.none')}</Text> : null}
        {others.length > 0 ? (
          <Group align="end">
            <MultiSelect
              label={t('sync.targets')}
              data={others.map((node) => ({ value: node.nodeId, label: `${node.name} (${node.nodeId})` }))}
              value={targets}
              onChange={setTargets}
              style={{ flex: 1 }}
              data-testid="sync-targets"
            />
            <Button
              disabled={targets.length === 0}
              loading={sync.isPending}
              onClick={() => sync.mutate(targets)}
            >
              {t('sync.submit')}
            </Button>
          </Group>
        ) : null}
        {sync.error ? <ErrorAlert error={sync.error} /> : null}
        {sync.data ? (
          <Table data-testid="sync-results">
            <Table.Tbody>
              {sync.data.results.map((result) => (
                <Table.Tr key={result.nodeId}>
                  <Table.Td>{nameOf(result.nodeId)}</Table.Td>
                  <Table.Td>
                    <Badge color={result.saved ? 'green' : 'red'} variant="light">
                      {result.saved ? t('sync.saved') : t('sync.notSaved')}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    {result.saved ? (result.applied ? t('sync.applied') : t('sync.pending')) : null}
                    {result.error ? (
                      <Text size="xs" c="red">
                        {result.error}
                      </Text>
                    ) : null}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : null}
      </Stack>
    </Card>
  );
}
