import { Switch } from '@mantine/core';
import { endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { LoadedSettingCard } from './loaded-setting-card.js';
import { SettingForm } from './setting-form.js';
import { usePublicBrandingRefresh } from './use-public-branding-refresh.js';
import { useSettingForm } from './use-setting-form.js';

const CARD = 'webPlayer';

function WebPlayerForm({
  enabled,
  onDirtyChange,
}: {
  enabled: boolean;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('settings');
  const refreshBranding = usePublicBrandingRefresh();
  const setting = useSettingForm({
    title: t('webPlayer.title'),
    endpoint: endpoints.user.setWebPlayer,
    saved: { enabled },
    toForm: (saved) => ({ enabled: saved.enabled }),
    toBody: (values) => values,
    // The switch is read back through the admin branding answer.
    invalidates: [endpoints.user.getAdminBranding],
    onSaved: () => void refreshBranding(),
    onDirtyChange,
  });
  return (
    <SettingForm card={CARD} setting={setting}>
      <Switch
        label={t('webPlayer.label')}
        description={t('webPlayer.help')}
        {...setting.form.getInputProps('enabled', { type: 'checkbox' })}
        data-testid="web-player-switch"
      />
    </SettingForm>
  );
}

/** The global web playback switch (default on); each user's own switch applies as well. */
export function WebPlayerCard({ onDirtyChange }: { onDirtyChange: (dirty: boolean) => void }) {
  const { t } = useTranslation('settings');
  const query = useEndpointQuery(endpoints.user.getAdminBranding, {});
  return (
    <LoadedSettingCard
      id={CARD}
      title={t('webPlayer.title')}
      scope="immediate"
      query={query}
      skeletonRows={2}
      onDirtyChange={onDirtyChange}
    >
      {(branding, report) => <WebPlayerForm enabled={branding.webPlayerEnabled} onDirtyChange={report} />}
    </LoadedSettingCard>
  );
}
