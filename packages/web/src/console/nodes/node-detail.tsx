import { useState, type ReactNode } from 'react';
import { Anchor, Button, Card, Code, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import {
  IconArrowLeft,
  IconArrowUpCircle,
  IconPencil,
  IconPlugConnectedX,
  IconStack2,
  IconTrash,
} from '@tabler/icons-react';
import { endpoints, type NodeView } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { formatDateTime } from '../../i18n/format.js';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { EditNodeModal } from './edit-node-modal.js';
import { NodeActionModal, type NodeAction } from './node-action-modal.js';
import { ProbeBadge, ScopeBadges, StatusBadge } from './node-badges.js';
import { NodeCredentials } from './node-credentials.js';
import { ProxySnippetCard } from './proxy-snippet-card.js';
import {
  canDelete,
  installOnTargetLink,
  isEmbedded,
  isManualAddress,
  lifecycleBlock,
  serviceTypeKey,
} from './node-status.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { useSession } from '../../session/session.js';

/** /console/nodes/:nodeId: the node card, its credentials, health and actions; refreshed every 10 s. */
export function NodeDetail() {
  const { t } = useTranslation('nodes');
  const { nodeId = '' } = useParams();
  const query = useEndpointQuery(
    endpoints.config.getNode,
    { params: { nodeId } },
    { refetchInterval: 10_000 },
  );
  return (
    <>
      <Anchor
        component={Link}
        to="/console/nodes"
        size="sm"
        mb="xs"
        display="inline-flex"
        style={{ alignItems: 'center', gap: 4 }}
      >
        <IconArrowLeft size={14} /> {t('detail.back')}
      </Anchor>
      <QueryState query={query} skeletonRows={8}>
        {(node) => <NodeDetailBody key={node.nodeId} node={node} />}
      </QueryState>
    </>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" component="div" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </div>
  );
}

function NodeDetailBody({ node }: { node: NodeView }) {
  const { t } = useTranslation('nodes');
  const navigate = useNavigate();
  const session = useSession();
  const [action, setAction] = useState<NodeAction | 'edit' | null>(null);
  const manual = isManualAddress(node);
  const upgradeBlock = lifecycleBlock(node, 'upgrade');
  const uninstallBlock = lifecycleBlock(node, 'uninstall');
  const blockReason = upgradeBlock ?? uninstallBlock;
  const close = () => setAction(null);
  const installLink = installOnTargetLink(node);
  // Reverse-proxy rule 8: a play-agent without an external address is handed out at its direct address.
  const directAddressHint =
    node.serviceType === 'svc-play-agent' && node.externalAddress === null && node.listenPort !== null
      ? t('detail.directAddress', {
          port: node.listenPort,
          host: isEmbedded(node) ? t('detail.directHostBuiltIn') : (node.expectedHost ?? '—'),
        })
      : null;

  return (
    <div data-testid="node-detail" data-node-id={node.nodeId}>
      <PageHeader
        title={node.name}
        actions={
          <Group gap="xs">
            {installLink !== null && (
              <Button component={Link} to={installLink} data-testid="node-install-on-target">
                {t('detail.installOnTarget')}
              </Button>
            )}
            {node.serviceType === 'svc-play-agent' && session.can('cache') ? (
              <Button
                variant="default"
                component={Link}
                to={`/console/cache/${encodeURIComponent(node.nodeId)}`}
                leftSection={<IconStack2 size={16} />}
                data-testid="node-cache-link"
              >
                {t('common:nav.cache')}
              </Button>
            ) : null}
            <Button
              variant="default"
              leftSection={<IconPencil size={16} />}
              onClick={() => setAction('edit')}
              data-testid="node-edit-button"
            >
              {t('common:edit')}
            </Button>
          </Group>
        }
      />
      <Stack gap="md">
        <Card withBorder padding="md">
          <Group gap="xs" mb="sm">
            <StatusBadge status={node.status} />
            <ScopeBadges node={node} />
            <Text size="sm" c="dimmed">
              {t(serviceTypeKey(node.serviceType))}
            </Text>
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm">
            <Field label={t('detail.nodeId')}>
              <Code>{node.nodeId}</Code>
            </Field>
            <Field label={t('columns.lastHeartbeat')}>
              {node.lastHeartbeatAt ? formatDateTime(node.lastHeartbeatAt) : t('never')}
            </Field>
            <Field label={t('columns.externalAddress')}>
              {node.externalAddress?.url ?? '—'}
              {directAddressHint && (
                <Text size="xs" c="dimmed" data-testid="node-direct-address">
                  {directAddressHint}
                </Text>
              )}
            </Field>
            {!manual && (
              <Field label={t('detail.expectedAddress')}>
                {node.expectedHost ? `${node.expectedHost}:${node.expectedPort ?? '—'}` : '—'}
              </Field>
            )}
            {node.listenPort !== null && (
              <Field label={t('detail.listenPort')}>
                <span data-testid="node-listen-port" title={t('detail.listenPortHint')}>
                  {node.listenPort}
                </span>
              </Field>
            )}
            <Field label={t('detail.createdAt')}>{formatDateTime(node.createdAt)}</Field>
            <Field label={t('detail.updatedAt')}>{formatDateTime(node.updatedAt)}</Field>
            {node.note && <Field label={t('detail.note')}>{node.note}</Field>}
          </SimpleGrid>
        </Card>

        {manual && (
          <Card withBorder padding="md" data-testid="node-health">
            <Group justify="space-between" mb="xs">
              <Title order={2} size="h4">
                {t('detail.health')}
              </Title>
              <ProbeBadge probe={node.probe} />
            </Group>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              <Field label={t('detail.checkedAt')}>
                {node.probe ? formatDateTime(node.probe.checkedAt) : '—'}
              </Field>
              <Field label={t('detail.healthDetail')}>{node.probe?.detail || '—'}</Field>
            </SimpleGrid>
            <Text size="xs" c="dimmed" mt="xs">
              {t('detail.healthHint')}
            </Text>
          </Card>
        )}

        <NodeCredentials node={node} />
        {manual && <ProxySnippetCard node={node} />}

        {!isEmbedded(node) && (
          <Card withBorder padding="md" data-testid="node-actions">
            <Title order={2} size="h4" mb="sm">
              {t('detail.actions')}
            </Title>
            <Group gap="xs">
              {!manual && (
                <>
                  <Button
                    variant="light"
                    leftSection={<IconArrowUpCircle size={16} />}
                    disabled={upgradeBlock !== null}
                    onClick={() => setAction('upgrade')}
                    data-testid="node-upgrade-button"
                  >
                    {t('upgrade')}
                  </Button>
                  <Button
                    variant="light"
                    color="orange"
                    leftSection={<IconPlugConnectedX size={16} />}
                    disabled={uninstallBlock !== null}
                    onClick={() => setAction('uninstall')}
                    data-testid="node-uninstall-button"
                  >
                    {t('uninstall')}
                  </Button>
                </>
              )}
              {canDelete(node) && (
                <Button
                  variant="light"
                  color="red"
                  leftSection={<IconTrash size={16} />}
                  onClick={() => setAction('delete')}
                  data-testid="node-delete-button"
                >
                  {t('common:delete')}
                </Button>
              )}
            </Group>
            {!manual && blockReason && (
              <Text size="xs" c="dimmed" mt="xs" data-testid="node-action-block">
                {t(`lifecycleBlock.${blockReason}`)}
              </Text>
            )}
          </Card>
        )}
        {isEmbedded(node) && (
          <Text size="sm" c="dimmed">
            {t('lifecycleBlock.embedded')}
          </Text>
        )}
      </Stack>
      <EditNodeModal node={node} opened={action === 'edit'} onClose={close} />
      <NodeActionModal
        node={node}
        action={action === 'edit' ? null : action}
        onClose={close}
        onDeleted={() => void navigate('/console/nodes')}
      />
    </div>
  );
}
