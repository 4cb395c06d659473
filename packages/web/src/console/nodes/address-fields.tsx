import { Fieldset, NumberInput, Select, SimpleGrid, TextInput } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { useTranslation } from 'react-i18next';

type AddressPath = 'externalAddress.protocol' | 'externalAddress.host' | 'externalAddress.port';

/** Protocol, host and port of an external address; a manual address is https only. */
export function AddressFields({
  inputProps,
  httpsOnly,
  description,
}: {
  inputProps: (path: AddressPath) => GetInputPropsReturnType;
  httpsOnly: boolean;
  description: string;
}) {
  const { t } = useTranslation('nodes');
  const protocolProps = inputProps('externalAddress.protocol');
  return (
    <Fieldset legend={t('form.externalAddress')} variant="unstyled">
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        <Select
          label={t('form.protocol')}
          data={httpsOnly ? ['https'] : ['https', 'http']}
          allowDeselect={false}
          {...protocolProps}
          value={httpsOnly ? 'https' : (protocolProps.value as string)}
          disabled={httpsOnly}
        />
        <TextInput
          label={t('form.host')}
          placeholder="media.example.com"
          required={httpsOnly}
          description={description}
          {...inputProps('externalAddress.host')}
          data-testid="node-form-external-host"
        />
        <NumberInput
          label={t('form.port')}
          placeholder={t('form.portDefault')}
          min={1}
          max={65535}
          allowDecimal={false}
          allowNegative={false}
          hideControls
          {...inputProps('externalAddress.port')}
          data-testid="node-form-external-port"
        />
      </SimpleGrid>
    </Fieldset>
  );
}
