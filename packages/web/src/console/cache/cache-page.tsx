import { Anchor, Button, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link, Route, Routes, useParams } from 'react-router';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { registerMessages } from '../../i18n/i18n.js';
import { useSession } from '../../session/session.js';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { CacheConfigCard } from './cache-config-card.js';
import { CacheEntriesCard } from './cache-entries-card.js';
import { CacheFlushButton } from './cache-flush-button.js';
import { cacheMessages } from './cache-messages.js';
import { CacheSyncCard } from './cache-sync-card.js';
import { CacheThreadsCard } from './cache-threads-card.js';
import { CacheUsageCard } from './cache-usage-card.js';
import { NodeCdnPage } from '../cdn/cdn-page.js';

registerMessages('cache', cacheMessages);

/** Node caches (permission `cache`): the play-agents at /console/cache, one node's cache at /console/cache/:nodeId. */
export default function CachePage() {
  return (
    <Routes>
      <Route index element={<PlayAgentPicker />} />
      <Route path=":nodeId" element={<NodeCache />} />
      <Route path=":nodeId/cdn" element={<NodeCdnPage />} />
    </Routes>
  );
}

function PlayAgentPicker() {
  const { t } = useTranslation('cache');
  const mayList = useSession().can('node');
  const query = useEndpointQuery(endpoints.config.listNodes, {}, { enabled: mayList });
  return (
    <>
      <PageHeader title={t('pickTitle')} timeZoneNote={false} />
      <Text mb="sm">{mayList ? t('pickIntro') : t('needNodePermission')}</Text>
      {mayList ? (
        <QueryState query={query}>
          {(list) => {
            const agents = list.nodes.filter((node) => node.serviceType === 'svc-play-agent');
            if (agents.length === 0) return <Text c="dimmed">{t('noPlayAgents')}</Text>;
            return (
              <Stack gap="xs">
                {agents.map((node) => (
                  <Anchor
                    key={node.nodeId}
                    component={Link}
                    to={`/console/cache/${encodeURIComponent(node.nodeId)}`}
                  >
                    {node.name} ({node.nodeId})
                  </Anchor>
                ))}
              </Stack>
            );
          }}
        </QueryState>
      ) : null}
    </>
  );
}

function NodeCache() {
  const { t } = useTranslation('cache');
  const { nodeId = '' } = useParams();
  const mayReadNode = useSession().can('node');
  const node = useEndpointQuery(endpoints.config.getNode, { params: { nodeId } }, { enabled: mayReadNode });
  const config = useEndpointQuery(endpoints.nodeCache.getNodeCacheConfig, { params: { nodeId } });
  return (
    <>
      <Anchor
        component={Link}
        to="/console/cache"
        size="sm"
        mb="xs"
        display="inline-flex"
        style={{ alignItems: 'center', gap: 4 }}
      >
        <IconArrowLeft size={14} /> {t('back')}
      </Anchor>
      <PageHeader
        title={t('title', { name: node.data?.name ?? nodeId })}
        actions={
          config.isSuccess ? (
            <>
              <Button
                component={Link}
                to={`/console/cache/${encodeURIComponent(nodeId)}/cdn`}
                variant="default"
                data-testid="node-cdn-link"
              >
                {t('cdnLink')}
              </Button>
              <CacheFlushButton nodeId={nodeId} />
            </>
          ) : null
        }
      />
      <QueryState query={config} skeletonRows={8}>
        {(loaded) => (
          <Stack>
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <CacheUsageCard nodeId={nodeId} />
              <CacheSyncCard nodeId={nodeId} />
            </SimpleGrid>
            <CacheConfigCard key={JSON.stringify(loaded)} nodeId={nodeId} config={loaded} />
            <CacheThreadsCard
              key={`threads-${JSON.stringify(loaded.vfs.driveThreads)}`}
              nodeId={nodeId}
              stored={loaded.vfs.driveThreads}
            />
            <CacheEntriesCard nodeId={nodeId} />
          </Stack>
        )}
      </QueryState>
    </>
  );
}
