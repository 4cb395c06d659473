import { endpoints, defaultLibraryAccessPolicySchema, type DefaultLibraryAccessPolicy } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { zodValidate } from '../../forms/zod-form.js';
import {
  LibraryAccessFormBody,
  useLibraryChoices,
  type LibraryChoices,
} from '../users/library-access-form-body.js';
import {
  libraryAccessFormErrors,
  libraryAccessValuesFrom,
  toLibraryAccessBody,
} from '../users/library-access-form.js';
import { LoadedSettingCard } from './loaded-setting-card.js';
import { SettingForm } from './setting-form.js';
import { useSettingForm } from './use-setting-form.js';

const CARD = 'defaultLibraryAccess';

function DefaultLibraryAccessForm({
  policy,
  libraries,
  onDirtyChange,
}: {
  policy: DefaultLibraryAccessPolicy;
  libraries: LibraryChoices;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('settings');
  const validate = zodValidate(defaultLibraryAccessPolicySchema, toLibraryAccessBody);
  const setting = useSettingForm({
    title: t('defaultLibraryAccess.title'),
    endpoint: endpoints.user.setDefaultLibraryAccessPolicy,
    saved: policy,
    toForm: (saved) => libraryAccessValuesFrom(saved, libraries.ids),
    toBody: toLibraryAccessBody,
    validate: (values) => libraryAccessFormErrors(validate(values)),
    onDirtyChange,
  });
  return (
    <SettingForm card={CARD} setting={setting} testId="default-library-access-form" showsSaveError={false}>
      <LibraryAccessFormBody
        form={setting.form}
        libraries={libraries}
        saveError={setting.error}
        modeMessages="settings:defaultLibraryAccess"
      />
    </SettingForm>
  );
}

/** The library access a new account starts with; mode and list are saved in one request. */
export function DefaultLibraryAccessCard({ onDirtyChange }: { onDirtyChange: (dirty: boolean) => void }) {
  const { t } = useTranslation('settings');
  const query = useEndpointQuery(endpoints.user.getDefaultLibraryAccessPolicy, {});
  const libraries = useLibraryChoices();
  return (
    <LoadedSettingCard
      id={CARD}
      title={t('defaultLibraryAccess.title')}
      help={t('defaultLibraryAccess.help')}
      scope="newUsers"
      query={query}
      skeletonRows={3}
      onDirtyChange={onDirtyChange}
    >
      {(policy, report) => (
        <DefaultLibraryAccessForm
          key={libraries.ids ? 'known' : 'unknown'}
          policy={policy}
          libraries={libraries}
          onDirtyChange={report}
        />
      )}
    </LoadedSettingCard>
  );
}
