import { SimpleGrid, TextInput } from '@mantine/core';
import {
  endpoints,
  protocolServerInfoSchema,
  updateProtocolServerInfoSchema,
  type ProtocolServerInfo,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { zodValidate } from '../../forms/zod-form.js';
import { LoadedSettingCard } from './loaded-setting-card.js';
import { SettingForm } from './setting-form.js';
import { useSettingForm } from './use-setting-form.js';

const CARD = 'protocolInfo';
const MAX_LENGTH = 128;

/** Only the two editable fields, whatever else the answer may carry. */
const infoValues = (info: ProtocolServerInfo) => ({
  serverName: info.serverName,
  productName: info.productName,
});

function ProtocolInfoForm({
  info,
  onDirtyChange,
}: {
  info: ProtocolServerInfo;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('settings');
  const setting = useSettingForm({
    title: t('protocolInfo.title'),
    endpoint: endpoints.media.updateProtocolSettings,
    saved: info,
    toForm: infoValues,
    toBody: (values) => values,
    toRequest: (values) => updateProtocolServerInfoSchema.parse(values),
    validate: zodValidate(protocolServerInfoSchema),
    onDirtyChange,
  });
  return (
    <SettingForm card={CARD} setting={setting}>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <TextInput
          label={t('protocolInfo.serverName')}
          maxLength={MAX_LENGTH}
          required
          {...setting.form.getInputProps('serverName')}
          data-testid="protocol-server-name"
        />
        <TextInput
          label={t('protocolInfo.productName')}
          maxLength={MAX_LENGTH}
          required
          {...setting.form.getInputProps('productName')}
          data-testid="protocol-product-name"
        />
      </SimpleGrid>
    </SettingForm>
  );
}

/** What players show as the server: serverName and productName of PROTO_A's /System/Info/Public. */
export function ProtocolInfoCard({ onDirtyChange }: { onDirtyChange: (dirty: boolean) => void }) {
  const { t } = useTranslation('settings');
  const query = useEndpointQuery(endpoints.media.getProtocolSettings, {});
  return (
    <LoadedSettingCard
      id={CARD}
      title={t('protocolInfo.title')}
      help={t('protocolInfo.help')}
      scope="immediate"
      query={query}
      skeletonRows={2}
      onDirtyChange={onDirtyChange}
    >
      {(info, report) => <ProtocolInfoForm info={info} onDirtyChange={report} />}
    </LoadedSettingCard>
  );
}
