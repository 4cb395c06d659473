import { useMemo, useState, type ReactNode } from 'react';
import { Select, Tabs } from '@mantine/core';
import { IconArrowsExchange, IconCloud, IconDatabase } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Route, Routes, useNavigate } from 'react-router';
import { registerMessages } from '../../i18n/i18n.js';
import { NotFoundPage, PageHeader } from '../../shell/page-route.js';
import { DriveAccountsTab } from './drive-accounts-tab.js';
import { FileBrowser } from './file-browser.js';
import { MountsTab } from './mounts-tab.js';
import { storageMessages } from './storage-messages.js';
import { defaultStorageNode, storageNodeHeaders } from './storage-nodes.js';
import { StorageTargetContext, type StorageTarget } from './storage-query.js';
import { TransferFeedProvider } from './transfer-feed-context.js';
import { FeedModeBadge, TransfersTab } from './transfers-tab.js';
import { UploadsProvider } from './uploads-context.js';
import { useStorageNodes } from './use-storage-nodes.js';

registerMessages('storage', storageMessages);

type StorageTab = 'mounts' | 'drives' | 'transfers';
const TAB_PATHS: Record<StorageTab, string> = {
  mounts: '/console/storage',
  drives: '/console/storage/drive-accounts',
  transfers: '/console/storage/transfers',
};
const TAB_BODIES: Record<StorageTab, () => ReactNode> = {
  mounts: () => <MountsTab />,
  drives: () => <DriveAccountsTab />,
  transfers: () => <TransfersTab />,
};

/** Mounts, drive accounts and transfers, as tabs with their own addresses. */
function StorageHome({ tab, nodePicker }: { tab: StorageTab; nodePicker: ReactNode }) {
  const { t } = useTranslation('storage');
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title={t('common:nav.storage')}
        actions={
          <>
            {nodePicker}
            {tab === 'transfers' ? null : <FeedModeBadge />}
          </>
        }
      />
      <Tabs
        value={tab}
        onChange={(value) => void navigate(TAB_PATHS[(value as StorageTab | null) ?? 'mounts'])}
        mb="md"
      >
        <Tabs.List>
          <Tabs.Tab value="mounts" leftSection={<IconDatabase size={16} />} data-testid="tab-mounts">
            {t('tabs.mounts')}
          </Tabs.Tab>
          <Tabs.Tab value="drives" leftSection={<IconCloud size={16} />} data-testid="tab-drive-accounts">
            {t('tabs.drives')}
          </Tabs.Tab>
          <Tabs.Tab
            value="transfers"
            leftSection={<IconArrowsExchange size={16} />}
            data-testid="tab-transfers"
          >
            {t('tabs.transfers')}
          </Tabs.Tab>
        </Tabs.List>
      </Tabs>
      {TAB_BODIES[tab]()}
    </>
  );
}

/**
 * The console's storage page: mounts, a file browser per mount with uploads, and transfers with live
 * progress. With several storage nodes the page works on the one chosen at the top.
 */
export default function StoragePage() {
  const { t } = useTranslation('storage');
  const nodes = useStorageNodes();
  const [chosen, setChosen] = useState<string | undefined>();
  const nodeId = nodes.several ? (chosen ?? defaultStorageNode(nodes.options)) : undefined;
  const headers = useMemo(() => storageNodeHeaders(nodeId, nodes.several), [nodeId, nodes.several]);
  const target = useMemo<StorageTarget>(() => ({ nodeId, headers }), [nodeId, headers]);

  const nodePicker = nodes.several ? (
    <Select
      aria-label={t('node.label')}
      data={nodes.options.map((option) => ({
        value: option.nodeId,
        label: option.online ? option.name : t('node.offline', { name: option.name }),
      }))}
      value={nodeId ?? null}
      onChange={(value) => value && setChosen(value)}
      allowDeselect={false}
      w={{ base: '100%', xs: 240 }}
      data-testid="storage-node"
    />
  ) : null;

  return (
    <StorageTargetContext.Provider value={target}>
      <TransferFeedProvider>
        <UploadsProvider>
          <Routes>
            <Route index element={<StorageHome tab="mounts" nodePicker={nodePicker} />} />
            <Route path="drive-accounts" element={<StorageHome tab="drives" nodePicker={nodePicker} />} />
            <Route path="transfers" element={<StorageHome tab="transfers" nodePicker={nodePicker} />} />
            <Route path="mounts/:mountId" element={<FileBrowser />} />
            <Route path="*" element={<NotFoundPage />} />
          </Routes>
        </UploadsProvider>
      </TransferFeedProvider>
    </StorageTargetContext.Provider>
  );
}
