import { TextInput } from '@mantine/core';
import {
  endpoints,
  SYSTEM_NAME_MAX_LENGTH,
  updateBrandingRequestSchema,
  type AdminBrandingResponse,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { zodValidate } from '../../forms/zod-form.js';
import { LoadedSettingCard } from './loaded-setting-card.js';
import { SettingForm } from './setting-form.js';
import { usePublicBrandingRefresh } from './use-public-branding-refresh.js';
import { useSettingForm } from './use-setting-form.js';

const CARD = 'systemName';

function SystemNameForm({
  branding,
  onDirtyChange,
}: {
  branding: AdminBrandingResponse;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('settings');
  const refreshBranding = usePublicBrandingRefresh();
  const setting = useSettingForm({
    title: t('systemName.title'),
    endpoint: endpoints.user.updateBranding,
    saved: branding,
    toForm: (saved) => ({ systemName: saved.systemName }),
    toBody: (values) => values,
    toRequest: (values) => updateBrandingRequestSchema.parse(values),
    validate: zodValidate(updateBrandingRequestSchema),
    onSaved: () => void refreshBranding(),
    onDirtyChange,
  });
  return (
    <SettingForm card={CARD} setting={setting}>
      <TextInput
        label={t('systemName.label')}
        description={t('systemName.help', { max: SYSTEM_NAME_MAX_LENGTH })}
        maxLength={SYSTEM_NAME_MAX_LENGTH}
        required
        {...setting.form.getInputProps('systemName')}
        data-testid="system-name-input"
      />
    </SettingForm>
  );
}

/** The system name in the header, on the sign-in pages and in the tab title. */
export function SystemNameCard({ onDirtyChange }: { onDirtyChange: (dirty: boolean) => void }) {
  const { t } = useTranslation('settings');
  const query = useEndpointQuery(endpoints.user.getAdminBranding, {});
  return (
    <LoadedSettingCard
      id={CARD}
      title={t('systemName.title')}
      scope="immediate"
      query={query}
      skeletonRows={2}
      onDirtyChange={onDirtyChange}
    >
      {(branding, report) => <SystemNameForm branding={branding} onDirtyChange={report} />}
    </LoadedSettingCard>
  );
}
