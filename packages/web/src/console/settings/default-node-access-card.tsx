import { Alert } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import {
  endpoints,
  defaultNodeAccessPolicySchema,
  type DefaultNodeAccessPolicyResponse,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { zodValidate } from '../../forms/zod-form.js';
import type { RouteChoices } from '../users/node-access-card.js';
import { NodeAccessFormBody } from '../users/node-access-form-body.js';
import { nodeAccessFormErrors, nodeAccessValuesFrom, toNodeAccessBody } from '../users/node-access-form.js';
import { useRouteOptions } from '../users/user-detail.js';
import { LoadedSettingCard } from './loaded-setting-card.js';
import { nodeAccessAdvice } from './policy-forms.js';
import { SettingForm } from './setting-form.js';
import { useSettingForm } from './use-setting-form.js';

const CARD = 'defaultNodeAccess';

function DefaultNodeAccessForm({
  policy,
  routes,
  onDirtyChange,
}: {
  policy: DefaultNodeAccessPolicyResponse;
  routes: RouteChoices;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('settings');
  const validate = zodValidate(defaultNodeAccessPolicySchema, toNodeAccessBody);
  const setting = useSettingForm({
    title: t('defaultNodeAccess.title'),
    endpoint: endpoints.user.setDefaultNodeAccessPolicy,
    saved: policy,
    toForm: nodeAccessValuesFrom,
    toBody: toNodeAccessBody,
    validate: (values) => nodeAccessFormErrors(validate(values), values),
    onDirtyChange,
  });
  return (
    <SettingForm card={CARD} setting={setting} testId="default-node-access-form" showsSaveError={false}>
      <NodeAccessFormBody
        form={setting.form}
        routes={routes}
        saveError={setting.error}
        modeMessages="settings:defaultNodeAccess"
        // Disabled nodes may be listed (they count again once enabled); they are marked as such.
        markDisabled={(label) => t('defaultNodeAccess.disabledMark', { label })}
        notices={nodeAccessAdvice(setting.form.values).map((code) => (
          <Alert
            key={code}
            color="yellow"
            variant="light"
            icon={<IconAlertTriangle size={18} />}
            data-testid={`node-access-advice-${code}`}
          >
            {t(`defaultNodeAccess.advice.${code}`)}
          </Alert>
        ))}
      />
    </SettingForm>
  );
}

/** The node access a new account starts with; mode and list are saved in one request. */
export function DefaultNodeAccessCard({ onDirtyChange }: { onDirtyChange: (dirty: boolean) => void }) {
  const { t } = useTranslation('settings');
  const query = useEndpointQuery(endpoints.user.getDefaultNodeAccessPolicy, {});
  const routes = useRouteOptions();
  return (
    <LoadedSettingCard
      id={CARD}
      title={t('defaultNodeAccess.title')}
      help={t('defaultNodeAccess.help')}
      scope="newUsers"
      query={query}
      skeletonRows={4}
      onDirtyChange={onDirtyChange}
    >
      {(policy, report) => <DefaultNodeAccessForm policy={policy} routes={routes} onDirtyChange={report} />}
    </LoadedSettingCard>
  );
}
