import { Switch } from '@mantine/core';
import { endpoints, type McpSettings } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { CopyableAddress } from './copyable-address.js';
import { mcpUrl } from './link-urls.js';
import { LoadedSettingCard } from './loaded-setting-card.js';
import { SettingForm } from './setting-form.js';
import { useSettingForm } from './use-setting-form.js';

const CARD = 'mcp';

function McpForm({
  settings,
  onDirtyChange,
}: {
  settings: McpSettings;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('settings');
  const setting = useSettingForm({
    title: t('mcp.title'),
    endpoint: endpoints.config.updateMcpSettings,
    saved: settings,
    toForm: (saved) => ({ enabled: saved.enabled }),
    toBody: (values) => values,
    onDirtyChange,
  });
  return (
    <SettingForm card={CARD} setting={setting}>
      <Switch
        label={t('mcp.label')}
        description={t('mcp.help')}
        {...setting.form.getInputProps('enabled', { type: 'checkbox' })}
        data-testid="mcp-switch"
      />
      <CopyableAddress
        label={t('mcp.url')}
        description={t('mcp.urlHelp')}
        value={mcpUrl(window.location.origin)}
        testId="mcp-url"
      />
    </SettingForm>
  );
}

/** Whether /mcp answers AI assistants (default off). */
export function McpCard({ onDirtyChange }: { onDirtyChange: (dirty: boolean) => void }) {
  const { t } = useTranslation('settings');
  const query = useEndpointQuery(endpoints.config.getMcpSettings, {});
  return (
    <LoadedSettingCard
      id={CARD}
      title={t('mcp.title')}
      scope="withinSeconds"
      query={query}
      skeletonRows={3}
      onDirtyChange={onDirtyChange}
    >
      {(settings, report) => <McpForm settings={settings} onDirtyChange={report} />}
    </LoadedSettingCard>
  );
}
