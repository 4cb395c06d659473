import { useState } from 'react';
import { ActionIcon, Anchor, Code, Menu, Stack, VisuallyHidden } from '@mantine/core';
import {
  IconArrowUpCircle,
  IconDots,
  IconExternalLink,
  IconPencil,
  IconPlugConnectedX,
  IconTrash,
} from '@tabler/icons-react';
import type { NodeView } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDateTime } from '../../i18n/format.js';
import { PagedTable, type TableColumn } from '../../shell/paged-table.js';
import { EditNodeModal } from './edit-node-modal.js';
import { ScopeBadges, StatusBadge } from './node-badges.js';
import { NodeActionModal, type NodeAction } from './node-action-modal.js';
import { canDelete, isEmbedded, lifecycleBlock, serviceTypeKey, sortNodes } from './node-status.js';

export const nodeLink = (nodeId: string) => `/console/nodes/${encodeURIComponent(nodeId)}`;

type Target = { nodeId: string; action: NodeAction | 'edit' };

export function NodesTable({ nodes }: { nodes: NodeView[] }) {
  const { t } = useTranslation('nodes');
  const [target, setTarget] = useState<Target | null>(null);
  const targetNode = target ? nodes.find((node) => node.nodeId === target.nodeId) : undefined;
  const close = () => setTarget(null);

  const columns: TableColumn<NodeView>[] = [
    { key: 'name', header: t('columns.name'), cell: (node) => <NodeNameCell node={node} /> },
    { key: 'type', header: t('columns.type'), cell: (node) => t(serviceTypeKey(node.serviceType)) },
    { key: 'scope', header: t('columns.scope'), cell: (node) => <ScopeBadges node={node} /> },
    { key: 'state', header: t('columns.state'), cell: (node) => <StatusBadge status={node.status} /> },
    {
      key: 'lastHeartbeat',
      header: t('columns.lastHeartbeat'),
      cell: (node) => (node.lastHeartbeatAt ? formatDateTime(node.lastHeartbeatAt) : t('never')),
      wrap: 'never',
    },
    {
      key: 'externalAddress',
      header: t('columns.externalAddress'),
      cell: (node) => node.externalAddress?.url ?? '—',
      wrap: 'anywhere',
    },
    {
      key: 'actions',
      header: <VisuallyHidden>{t('common:actions')}</VisuallyHidden>,
      cell: (node) => (
        <RowMenu node={node} onAction={(action) => setTarget({ nodeId: node.nodeId, action })} />
      ),
    },
  ];

  return (
    <>
      <PagedTable
        testId="nodes"
        minWidth={960}
        verticalSpacing="sm"
        columns={columns}
        rows={sortNodes(nodes)}
        rowKey={(node) => node.nodeId}
        rowAttributes={(node) => ({ 'data-testid': 'node-row', 'data-node-id': node.nodeId })}
        emptyText={t('common:noData')}
      />
      {targetNode && (
        <>
          <EditNodeModal node={targetNode} opened={target?.action === 'edit'} onClose={close} />
          <NodeActionModal
            node={targetNode}
            action={target && target.action !== 'edit' ? target.action : null}
            onClose={close}
          />
        </>
      )}
    </>
  );
}

function NodeNameCell({ node }: { node: NodeView }) {
  return (
    <Stack gap={2}>
      <Anchor component={Link} to={nodeLink(node.nodeId)} fw={500} data-testid="node-link">
        {node.name}
      </Anchor>
      <Code fz="xs" w="fit-content" style={{ whiteSpace: 'nowrap' }}>
        {node.nodeId}
      </Code>
    </Stack>
  );
}

/** Per-row actions; built-in nodes get no upgrade, uninstall or delete at all. */
function RowMenu({ node, onAction }: { node: NodeView; onAction: (action: NodeAction | 'edit') => void }) {
  const { t } = useTranslation('nodes');
  const upgradeBlock = lifecycleBlock(node, 'upgrade');
  const uninstallBlock = lifecycleBlock(node, 'uninstall');
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon
          variant="subtle"
          color="gray"
          aria-label={t('moreActions', { name: node.name })}
          data-testid={`node-actions-${node.nodeId}`}
        >
          <IconDots size={18} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item component={Link} to={nodeLink(node.nodeId)} leftSection={<IconExternalLink size={16} />}>
          {t('open')}
        </Menu.Item>
        <Menu.Item
          leftSection={<IconPencil size={16} />}
          onClick={() => onAction('edit')}
          data-testid="node-action-edit"
        >
          {t('common:edit')}
        </Menu.Item>
        {!isEmbedded(node) && upgradeBlock !== 'manual' && (
          <>
            <Menu.Item
              leftSection={<IconArrowUpCircle size={16} />}
              disabled={upgradeBlock !== null}
              title={upgradeBlock ? t(`lifecycleBlock.${upgradeBlock}`) : undefined}
              onClick={() => onAction('upgrade')}
              data-testid="node-action-upgrade"
            >
              {t('upgrade')}
            </Menu.Item>
            <Menu.Item
              leftSection={<IconPlugConnectedX size={16} />}
              disabled={uninstallBlock !== null}
              title={uninstallBlock ? t(`lifecycleBlock.${uninstallBlock}`) : undefined}
              onClick={() => onAction('uninstall')}
              data-testid="node-action-uninstall"
            >
              {t('uninstall')}
            </Menu.Item>
          </>
        )}
        {canDelete(node) && (
          <Menu.Item
            color="red"
            leftSection={<IconTrash size={16} />}
            onClick={() => onAction('delete')}
            data-testid="node-action-delete"
          >
            {t('common:delete')}
          </Menu.Item>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}
