import { Button, Group, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { endpoints, type NodeImageSettings } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation, useEndpointQuery } from '../../api/endpoint-hooks.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import { QueryState } from '../../shell/query-state.js';

/** An empty field returns to the environment default. */
function orNull(value: string): string | null {
  const trimmed = value.trim();
  return trimmed.length === 0 ? null : trimmed;
}

function ImageForm({ settings }: { settings: NodeImageSettings }) {
  const { t } = useTranslation('nodes');
  const form = useForm({
    initialValues: { image: settings.stored.image ?? '', imageFfmpeg: settings.stored.imageFfmpeg ?? '' },
  });
  const save = useEndpointMutation(
    (call, values: { image: string; imageFfmpeg: string }) =>
      call(endpoints.config.updateNodeImageSettings, {
        body: { image: orNull(values.image), imageFfmpeg: orNull(values.imageFfmpeg) },
      }),
    [endpoints.config.getNodeImageSettings, endpoints.config.getBinaryStatus],
  );
  return (
    <form
      noValidate
      onSubmit={form.onSubmit((values) =>
        save.mutate(values, {
          onSuccess: (saved) => {
            form.setInitialValues({
              image: saved.stored.image ?? '',
              imageFfmpeg: saved.stored.imageFfmpeg ?? '',
            });
            form.reset();
            notifications.show({ color: 'green', message: t('binaries.imageSaved') });
          },
        }),
      )}
    >
      <Stack gap="xs">
        <TextInput
          label={t('binaries.imageSetting')}
          description={t('binaries.imageSettingHelp', { image: settings.defaults.image })}
          placeholder={settings.defaults.image}
          {...form.getInputProps('image')}
          data-testid="node-image-input"
        />
        <TextInput
          label={t('binaries.imageFfmpegSetting')}
          description={t('binaries.imageFfmpegSettingHelp')}
          placeholder={settings.defaults.imageFfmpeg}
          {...form.getInputProps('imageFfmpeg')}
          data-testid="node-image-ffmpeg-input"
        />
        {save.isError && <ErrorAlert error={save.error} form={form} />}
        <Group justify="flex-end">
          <Button type="submit" size="xs" loading={save.isPending} disabled={!form.isDirty()}>
            {t('binaries.imageSave')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The container images worker installs name: a setting of the config service, the environment as default. */
export function NodeImageSettingsForm() {
  const { t } = useTranslation('nodes');
  const query = useEndpointQuery(endpoints.config.getNodeImageSettings, {});
  return (
    <Stack gap={4} mt="sm" data-testid="node-image-settings">
      <Title order={3} size="h5">
        {t('binaries.imageTitle')}
      </Title>
      <QueryState query={query} skeletonRows={2}>
        {(settings) => <ImageForm settings={settings} />}
      </QueryState>
    </Stack>
  );
}
