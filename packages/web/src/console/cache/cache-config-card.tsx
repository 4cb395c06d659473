import { useState } from 'react';
import {
  Alert,
  Button,
  Card,
  Fieldset,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  endpoints,
  METADATA_PROBE_CONCURRENCY,
  METADATA_PROBE_COOLDOWN_HOURS,
  METADATA_PROBE_START_DELAY_SECONDS,
  METADATA_PROBE_TRAFFIC_CAP_MB,
  VFS_CACHE_MODES,
  VFS_CACHE_PRESETS,
  type NodeCacheConfig,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { CacheNumberField, CacheTextField, type FieldProps } from './cache-fields.js';
import {
  choosePreset,
  DISK_TYPES,
  formValuesOf,
  patchOf,
  readAheadWarning,
  serverFieldErrors,
  shownPreset,
  type CacheFormValues,
  type DiskType,
} from './cache-form.js';

type Section = 'vfs' | 'image' | 'metadataProbe';

/** The node's cache configuration as a form; save sends the whole form as one PATCH. */
export function CacheConfigCard({ nodeId, config }: { nodeId: string; config: NodeCacheConfig }) {
  const { t } = useTranslation('cache');
  const [values, setValues] = useState<CacheFormValues>(() => formValuesOf(config));
  const [diskType, setDiskType] = useState<DiskType>('unknown');
  const save = useEndpointMutation(
    (call, next: CacheFormValues) =>
      call(endpoints.nodeCache.updateNodeCacheConfig, { params: { nodeId }, body: patchOf(next) }),
    [endpoints.nodeCache.getNodeCacheConfig],
  );
  const fieldErrors = save.error ? serverFieldErrors(save.error) : null;

  function set<S extends Section, K extends keyof CacheFormValues[S]>(section: S, key: K) {
    return (value: CacheFormValues[S][K]) =>
      setValues((current) => ({ ...current, [section]: { ...current[section], [key]: value } }));
  }
  const field = <S extends Section>(section: S, key: keyof CacheFormValues[S] & string): FieldProps => ({
    name: `${section}.${key}`,
    label: t(`config.${key}`),
    error: fieldErrors?.[`${section}.${key}`],
  });
  const num = <S extends Section>(section: S, key: keyof CacheFormValues[S] & string) => ({
    ...field(section, key),
    value: values[section][key as keyof CacheFormValues[S]] as number,
    onChange: set(section, key as keyof CacheFormValues[S]) as (value: number) => void,
  });
  const choice = (
    section: 'metadataProbe',
    key: keyof CacheFormValues['metadataProbe'],
    options: readonly number[],
  ) => (
    <Select
      label={t(`config.${key}`)}
      data={options.map((option) => ({ value: String(option), label: String(option) }))}
      value={String(values.metadataProbe[key])}
      onChange={(value) => value !== null && set(section, key)(Number(value))}
      error={fieldErrors?.[`${section}.${key}`]}
      allowDeselect={false}
      data-testid={`probe-${key}`}
    />
  );
  const preset = shownPreset(values);
  const warning = readAheadWarning(values.vfs.readAheadMb, diskType);

  const submit = () =>
    save.mutate(values, {
      onSuccess: (saved) => {
        setValues(formValuesOf(saved));
        notifications.show({ color: 'green', message: t('config.saved') });
      },
    });

  return (
    <Card withBorder>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Stack>
          <Title order={2} size="h4">
            {t('config.title')}
          </Title>
          <Fieldset legend={t('config.video')}>
            <Stack gap="sm">
              <Switch
                label={t('config.enabled')}
                data-testid="vfs-enabled-switch"
                checked={values.vfs.enabled}
                onChange={(event) => set('vfs', 'enabled')(event.currentTarget.checked)}
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <Select
                  label={t('config.mode')}
                  data={VFS_CACHE_MODES.map((mode) => ({ value: mode, label: t(`config.modes.${mode}`) }))}
                  value={values.vfs.mode}
                  onChange={(value) => value && set('vfs', 'mode')(value)}
                  error={fieldErrors?.['vfs.mode']}
                  allowDeselect={false}
                />
                <Select
                  label={t('config.preset')}
                  description={t('config.presetHelp')}
                  data-testid="cache-preset"
                  data={[...VFS_CACHE_PRESETS, 'custom' as const].map((option) => ({
                    value: option,
                    label: t(`config.presets.${option}`),
                  }))}
                  value={preset}
                  onChange={(value) => value && setValues((current) => choosePreset(current, value))}
                  error={fieldErrors?.['vfs.preset']}
                  allowDeselect={false}
                />
              </SimpleGrid>
              <Switch
                label={t('config.smartProbe')}
                checked={values.vfs.smartProbe}
                onChange={(event) => set('vfs', 'smartProbe')(event.currentTarget.checked)}
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <CacheNumberField {...num('vfs', 'capacityGb')} decimalScale={2} min={0} />
                <CacheTextField
                  {...field('vfs', 'directory')}
                  description={t('config.directoryHelp')}
                  value={values.vfs.directory}
                  onChange={set('vfs', 'directory')}
                />
                <CacheNumberField {...num('vfs', 'retentionHours')} min={1} />
                <CacheNumberField {...num('vfs', 'cleanupIntervalMinutes')} min={1} />
                <CacheNumberField {...num('vfs', 'readAheadMb')} min={0} />
                <Select
                  label={t('config.diskType')}
                  data={DISK_TYPES.map((type) => ({ value: type, label: t(`config.diskTypes.${type}`) }))}
                  value={diskType}
                  onChange={(value) => value && setDiskType(value)}
                  allowDeselect={false}
                  data-testid="disk-type"
                />
              </SimpleGrid>
              {warning !== null ? (
                <Alert color="yellow" data-testid="read-ahead-warning">
                  {t('config.readAheadWarning', { limit: warning })}
                </Alert>
              ) : null}
              <SimpleGrid cols={{ base: 1, sm: 3 }}>
                <CacheNumberField {...num('vfs', 'backgroundConcurrency')} min={-1} />
                <CacheNumberField {...num('vfs', 'skipReleasedBeforeDays')} min={0} />
                <CacheNumberField {...num('vfs', 'forcePopularViewers')} min={0} />
              </SimpleGrid>
              <Fieldset legend={t('config.expert')} variant="filled">
                <SimpleGrid cols={{ base: 1, sm: 4 }}>
                  <CacheNumberField {...num('vfs', 'minHeadMb')} decimalScale={2} min={0} />
                  <CacheNumberField {...num('vfs', 'minTailMb')} decimalScale={2} min={0} />
                  <CacheNumberField {...num('vfs', 'perFileHardCapMb')} decimalScale={2} min={0} />
                  <CacheNumberField {...num('vfs', 'probeBudgetMb')} decimalScale={2} min={0} />
                </SimpleGrid>
              </Fieldset>
            </Stack>
          </Fieldset>
          <Fieldset legend={t('config.image')}>
            <Stack gap="sm">
              <Switch
                label={t('config.imageEnabled')}
                checked={values.image.enabled}
                onChange={(event) => set('image', 'enabled')(event.currentTarget.checked)}
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <CacheNumberField {...num('image', 'capacityMb')} min={0} />
                <CacheTextField
                  {...field('image', 'directory')}
                  description={t('config.directoryHelp')}
                  value={values.image.directory}
                  onChange={set('image', 'directory')}
                />
                <CacheNumberField {...num('image', 'retentionHours')} min={1} />
                <CacheNumberField {...num('image', 'cleanupIntervalMinutes')} min={1} />
              </SimpleGrid>
            </Stack>
          </Fieldset>
          <Fieldset legend={t('config.metadataProbe')}>
            <Stack gap="sm">
              <Switch
                label={t('config.probeEnabled')}
                checked={values.metadataProbe.enabled}
                onChange={(event) => set('metadataProbe', 'enabled')(event.currentTarget.checked)}
              />
              <SimpleGrid cols={{ base: 1, sm: 4 }}>
                {choice('metadataProbe', 'maxConcurrency', METADATA_PROBE_CONCURRENCY)}
                {choice('metadataProbe', 'trafficCapMb', METADATA_PROBE_TRAFFIC_CAP_MB)}
                {choice('metadataProbe', 'startDelaySeconds', METADATA_PROBE_START_DELAY_SECONDS)}
                {choice('metadataProbe', 'failureCooldownHours', METADATA_PROBE_COOLDOWN_HOURS)}
              </SimpleGrid>
            </Stack>
          </Fieldset>
          {save.error && !fieldErrors ? <ErrorAlert error={save.error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setValues(formValuesOf(config))}>
              {t('config.reset')}
            </Button>
            <Button type="submit" loading={save.isPending}>
              {t('config.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
