import { endpoints, defaultQuotaPolicySchema, type DefaultQuotaPolicy } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import type { RouteChoices } from '../users/node-access-card.js';
import { QuotaFormBody, quotaFormValidate } from '../users/quota-form-body.js';
import { quotasValuesFrom, toQuotasBody } from '../users/quota-form.js';
import { useRouteOptions } from '../users/user-detail.js';
import { LoadedSettingCard } from './loaded-setting-card.js';
import { SettingForm } from './setting-form.js';
import { useSettingForm } from './use-setting-form.js';

const CARD = 'defaultQuota';

function DefaultQuotaForm({
  policy,
  routes,
  onDirtyChange,
}: {
  policy: DefaultQuotaPolicy;
  routes: RouteChoices;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('settings');
  const setting = useSettingForm({
    title: t('defaultQuota.title'),
    endpoint: endpoints.user.setDefaultQuotaPolicy,
    saved: policy,
    toForm: (saved) => quotasValuesFrom(saved),
    toBody: toQuotasBody,
    validate: quotaFormValidate(defaultQuotaPolicySchema, t('common:validation.required')),
    onDirtyChange,
  });
  return (
    <SettingForm card={CARD} setting={setting} testId="default-quota-form" showsSaveError={false}>
      <QuotaFormBody form={setting.form} routes={routes} saveError={setting.error} />
    </SettingForm>
  );
}

/** The quotas a new account starts with (existing users keep theirs). */
export function DefaultQuotaCard({ onDirtyChange }: { onDirtyChange: (dirty: boolean) => void }) {
  const { t } = useTranslation('settings');
  const query = useEndpointQuery(endpoints.user.getDefaultQuotaPolicy, {});
  const routes = useRouteOptions();
  return (
    <LoadedSettingCard
      id={CARD}
      title={t('defaultQuota.title')}
      help={t('defaultQuota.help')}
      scope="newUsers"
      query={query}
      skeletonRows={4}
      onDirtyChange={onDirtyChange}
    >
      {(policy, report) => <DefaultQuotaForm policy={policy} routes={routes} onDirtyChange={report} />}
    </LoadedSettingCard>
  );
}
