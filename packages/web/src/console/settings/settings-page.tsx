import { Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { registerMessages } from '../../i18n/i18n.js';
import { PageHeader } from '../../shell/page-route.js';
import { reportsMessages } from '../reports/reports-messages.js';
import { usersMessages } from '../users/users-messages.js';
import { DefaultLibraryAccessCard } from './default-library-access-card.js';
import { DefaultNodeAccessCard } from './default-node-access-card.js';
import { DefaultQuotaCard } from './default-quota-card.js';
import { LogoCard } from './logo-card.js';
import { McpCard } from './mcp-card.js';
import { PlayAgentPolicyCard } from './play-agent-policy-card.js';
import { ProtocolInfoCard } from './protocol-info-card.js';
import { RetentionSection } from './retention-section.js';
import { settingsMessages } from './settings-messages.js';
import { SystemNameCard } from './system-name-card.js';
import { UnsavedChangesGuard, useDirtyCards } from './unsaved-guard.js';
import { WebPlayerCard } from './web-player-card.js';
import { WebhookTokenCard } from './webhook-token-card.js';
import { OutboundWebhooksSection } from './webhooks/outbound-webhooks-section.js';

registerMessages('settings', settingsMessages);
// Cards shared with the users page and the report (quota and node access fields, retention).
registerMessages('users', usersMessages);
registerMessages('reports', reportsMessages);

/** Card ids → their title keys, for the guard's list of unsaved cards. */
const CARD_TITLES: Record<string, string> = {
  systemName: 'settings:systemName.title',
  logo: 'settings:logo.title',
  webPlayer: 'settings:webPlayer.title',
  defaultQuota: 'settings:defaultQuota.title',
  defaultNodeAccess: 'settings:defaultNodeAccess.title',
  defaultLibraryAccess: 'settings:defaultLibraryAccess.title',
  playAgentPolicy: 'settings:playAgentPolicy.title',
  protocolInfo: 'settings:protocolInfo.title',
  mcp: 'settings:mcp.title',
  retention: 'reports:retention.title',
  outboundWebhooks: 'settings:outboundWebhooks',
};

/**
 * System configuration (permission `settings`): one card per setting group, each saved on its own, with a
 * guard against leaving while any card holds unsaved edits.
 */
export default function SettingsPage() {
  const { t } = useTranslation('settings');
  const { dirtyCards, reporter } = useDirtyCards();
  return (
    <>
      <PageHeader title={t('title')} />
      <Text size="sm" c="dimmed" mb="md">
        {t('intro')}
      </Text>
      <Stack gap="md" data-testid="settings-page">
        <SystemNameCard onDirtyChange={reporter('systemName')} />
        <LogoCard onDirtyChange={reporter('logo')} />
        <WebPlayerCard onDirtyChange={reporter('webPlayer')} />
        <DefaultQuotaCard onDirtyChange={reporter('defaultQuota')} />
        <DefaultNodeAccessCard onDirtyChange={reporter('defaultNodeAccess')} />
        <DefaultLibraryAccessCard onDirtyChange={reporter('defaultLibraryAccess')} />
        <PlayAgentPolicyCard onDirtyChange={reporter('playAgentPolicy')} />
        <ProtocolInfoCard onDirtyChange={reporter('protocolInfo')} />
        <McpCard onDirtyChange={reporter('mcp')} />
        <RetentionSection onDirtyChange={reporter('retention')} />
        <WebhookTokenCard />
        <OutboundWebhooksSection onDirtyChange={reporter('outboundWebhooks')} />
      </Stack>
      <UnsavedChangesGuard dirtyCards={dirtyCards} cardTitle={(card) => t(CARD_TITLES[card] ?? card)} />
    </>
  );
}
