import { Alert, NumberInput, Radio, Stack, Switch, Text } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { endpoints, updatePlayAgentPolicyRequestSchema, type PlayAgentPolicy } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { zodValidate } from '../../forms/zod-form.js';
import { LoadedSettingCard } from './loaded-setting-card.js';
import { playAgentPolicyValuesFrom, protocolChoices, toPlayAgentPolicyBody } from './policy-forms.js';
import { SettingForm } from './setting-form.js';
import { useSettingForm } from './use-setting-form.js';

const CARD = 'playAgentPolicy';

function PlayAgentPolicyForm({
  policy,
  onDirtyChange,
}: {
  policy: PlayAgentPolicy;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('settings');
  const setting = useSettingForm({
    title: t('playAgentPolicy.title'),
    endpoint: endpoints.config.updatePlayAgentPolicy,
    saved: policy,
    toForm: playAgentPolicyValuesFrom,
    toBody: toPlayAgentPolicyBody,
    validate: zodValidate(updatePlayAgentPolicyRequestSchema, toPlayAgentPolicyBody),
    onDirtyChange,
  });
  return (
    <SettingForm card={CARD} setting={setting} gap="md">
      <Radio.Group
        label={t('playAgentPolicy.protocol')}
        description={t('playAgentPolicy.protocolHelp')}
        {...setting.form.getInputProps('protocol')}
        data-testid="play-agent-protocol"
      >
        <Stack gap="xs" mt="xs">
          {protocolChoices().map(({ protocol, available }) => (
            <Radio
              key={protocol}
              value={protocol}
              disabled={!available}
              label={available ? protocol : t('playAgentPolicy.notAvailable', { protocol })}
              data-testid={`play-agent-protocol-${protocol}`}
            />
          ))}
        </Stack>
      </Radio.Group>
      <Switch
        label={t('playAgentPolicy.responseCache')}
        description={t('playAgentPolicy.responseCacheHelp')}
        {...setting.form.getInputProps('responseCache', { type: 'checkbox' })}
        data-testid="play-agent-response-cache"
      />
      <NumberInput
        label={t('playAgentPolicy.ttl')}
        description={t('playAgentPolicy.ttlHelp')}
        value={policy.metadataCacheTtlSeconds}
        readOnly
        hideControls
        w={{ base: '100%', sm: 280 }}
        data-testid="play-agent-ttl"
      />
      <Switch
        label={t('playAgentPolicy.driveARedirect')}
        description={t('playAgentPolicy.driveARedirectHelp')}
        {...setting.form.getInputProps('driveARedirect', { type: 'checkbox' })}
        data-testid="play-agent-drive-a-redirect"
      />
      <Alert color="blue" variant="light" icon={<IconInfoCircle size={18} />}>
        <Text size="sm">{t('playAgentPolicy.timing')}</Text>
      </Alert>
    </SettingForm>
  );
}

/** Protocol, response cache and the global DRIVE_A redirect switch, fetched by play-agents every 30 s. */
export function PlayAgentPolicyCard({ onDirtyChange }: { onDirtyChange: (dirty: boolean) => void }) {
  const { t } = useTranslation('settings');
  const query = useEndpointQuery(endpoints.config.getPlayAgentPolicy, {});
  return (
    <LoadedSettingCard
      id={CARD}
      title={t('playAgentPolicy.title')}
      scope="policyRefresh"
      query={query}
      skeletonRows={5}
      onDirtyChange={onDirtyChange}
    >
      {(policy, report) => <PlayAgentPolicyForm policy={policy} onDirtyChange={report} />}
    </LoadedSettingCard>
  );
}
