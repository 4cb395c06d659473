import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { Button, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { endpoints, type NodeServiceType } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { BinariesCard } from './binaries-card.js';
import { CreateNodeModal, type CreateNodePreset } from './create-node-modal.js';
import { INSTALL_ON_TARGET_PARAMS } from './node-status.js';
import { LegacyNodesCard } from './legacy-nodes-card.js';
import { NodesTable } from './nodes-table.js';
import { SlotsCard } from './slots-card.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

/** /console/nodes: the overview cards and every node, refreshed every 10 s so state changes show. */
export function NodesList() {
  const { t } = useTranslation('nodes');
  const [creating, setCreating] = useState(false);
  // "Install on a target machine" of a node awaiting install links here with its id and type.
  const [search, setSearch] = useSearchParams();
  const presetId = search.get(INSTALL_ON_TARGET_PARAMS.nodeId);
  const presetType = search.get(INSTALL_ON_TARGET_PARAMS.serviceType);
  const preset: CreateNodePreset | undefined =
    presetId !== null && (presetType === 'svc-control-storage' || presetType === 'svc-play-agent')
      ? { nodeId: presetId, serviceType: presetType satisfies NodeServiceType }
      : undefined;
  const closeCreate = () => {
    setCreating(false);
    if (preset) setSearch({}, { replace: true });
  };
  const list = useEndpointQuery(endpoints.config.listNodes, {}, { refetchInterval: 10_000 });
  const licence = useEndpointQuery(endpoints.config.getLicenseStatus, {});

  return (
    <>
      <PageHeader
        title={t('common:nav.nodes')}
        actions={
          <Button
            leftSection={<IconPlus size={16} />}
            onClick={() => setCreating(true)}
            disabled={!list.data}
            data-testid="node-create-button"
          >
            {t('addNode')}
          </Button>
        }
      />
      <QueryState query={list} skeletonRows={8}>
        {(data) => (
          <Stack gap="md">
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
              <SlotsCard list={data} licence={licence.data} />
              {data.edition === 'DISTRIBUTED' && <BinariesCard />}
              {data.edition === 'STANDALONE' && <LegacyNodesCard />}
            </SimpleGrid>
            <NodesTable nodes={data.nodes} />
            <Text size="xs" c="dimmed">
              {t('autoRefresh')}
            </Text>
          </Stack>
        )}
      </QueryState>
      {list.data && (
        <CreateNodeModal
          opened={creating || preset !== undefined}
          onClose={closeCreate}
          preset={preset}
          context={{ edition: list.data.edition, slotsUsed: list.data.slotsUsed, licence: licence.data }}
        />
      )}
    </>
  );
}
