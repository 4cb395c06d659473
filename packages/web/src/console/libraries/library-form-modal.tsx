import { useEffect } from 'react';
import { ActionIcon, Group, Modal, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconFolder, IconX } from '@tabler/icons-react';
import { createLibraryRequestSchema, endpoints, type Library, LIBRARY_TYPES } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { zodValidate } from '../../forms/zod-form.js';
import { toMediaPath } from '../storage/mount-path.js';
import {
  addSources,
  emptyLibraryValues,
  libraryToValues,
  sourceKey,
  toCreateLibraryRequest,
  toUpdateLibraryRequest,
  type LibraryFormValues,
} from './library-form.js';
import { sourceLabel, useMountLabels } from './mount-labels.js';
import { SourcePicker } from './source-picker.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { FormActions } from '../../shell/form-actions.js';

/** The toast after saving: a new library says whether its first scan started (the server starts one). */
function createdMessage(library: Library | undefined, saved: Library) {
  if (library) return 'form.saved';
  return saved.lastScan ? 'form.createdScanning' : 'form.created';
}

/** Create a library, or change one (`library` given): name, type (fixed once created) and source folders. */
export function LibraryFormModal({
  opened,
  library,
  onClose,
  onSaved,
}: {
  opened: boolean;
  library?: Library | undefined;
  onClose: () => void;
  onSaved?: (library: Library) => void;
}) {
  const { t } = useTranslation('libraries');
  const labels = useMountLabels();
  const form = useForm<LibraryFormValues>({
    mode: 'controlled',
    initialValues: emptyLibraryValues(),
    validate: zodValidate(createLibraryRequestSchema, toCreateLibraryRequest),
  });
  const { setValues, clearErrors } = form;
  useEffect(() => {
    if (!opened) return;
    setValues(library ? libraryToValues(library) : emptyLibraryValues());
    clearErrors();
  }, [opened, library, setValues, clearErrors]);

  const save = useEndpointMutation(
    (call, values: LibraryFormValues) =>
      library
        ? call(endpoints.media.updateLibrary, {
            params: { id: library.id },
            body: toUpdateLibraryRequest(values, library),
          })
        : call(endpoints.media.createLibrary, { body: toCreateLibraryRequest(values) }),
    [endpoints.media.listLibraries],
  );
  const close = () => {
    save.reset();
    onClose();
  };

  const sourceErrors = Object.entries(form.errors)
    .filter(([key]) => key === 'sources' || key.startsWith('sources.'))
    .map(([key, message]) =>
      // The list itself is only ever too short or has a folder twice: say so in the page's words.
      key === 'sources'
        ? t('form.sourcesRequired')
        : typeof message === 'string'
          ? message
          : t('form.invalidSource'),
    );

  return (
    <Modal
      opened={opened}
      onClose={close}
      size="xl"
      title={library ? t('form.editTitle', { name: library.name }) : t('form.createTitle')}
    >
      <form
        noValidate
        data-testid="library-form"
        onSubmit={form.onSubmit((values) => {
          if (library && Object.keys(toUpdateLibraryRequest(values, library)).length === 0) {
            close();
            return;
          }
          save.mutate(values, {
            onSuccess: (saved) => {
              notifications.show({
                color: 'green',
                message: t(createdMessage(library, saved), { name: saved.name }),
              });
              close();
              onSaved?.(saved);
            },
          });
        })}
      >
        <Stack gap="sm">
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput
              label={t('form.name')}
              required
              data-autofocus
              data-testid="library-name"
              {...form.getInputProps('name')}
            />
            <Select
              label={t('form.type')}
              description={library ? t('form.typeFixed') : undefined}
              data={LIBRARY_TYPES.map((type) => ({ value: type, label: t(`type.${type}`) }))}
              allowDeselect={false}
              disabled={Boolean(library)}
              data-testid="library-type"
              {...form.getInputProps('type')}
            />
          </SimpleGrid>
          <Stack gap={6}>
            <Text size="sm" fw={500}>
              {t('form.sources')}
            </Text>
            {form.values.sources.length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('form.noSources')}
              </Text>
            ) : (
              <Stack gap={4} data-testid="library-sources">
                {form.values.sources.map((source, index) => (
                  <Group key={sourceKey(source)} gap="xs" wrap="nowrap" data-testid="library-source">
                    <IconFolder size={16} aria-hidden />
                    <Text size="sm" style={{ flex: 1, wordBreak: 'break-all' }}>
                      {sourceLabel({ mountId: source.mountId, path: toMediaPath(source.path) }, labels)}
                      <Text span size="xs" c="dimmed">
                        {' '}
                        · {source.nodeId}
                      </Text>
                    </Text>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={t('form.removeSource', { path: toMediaPath(source.path) })}
                      onClick={() => form.removeListItem('sources', index)}
                      data-testid="library-source-remove"
                    >
                      <IconX size={16} />
                    </ActionIcon>
                  </Group>
                ))}
              </Stack>
            )}
            {sourceErrors.map((message) => (
              <Text key={message} size="xs" c="red" role="alert">
                {message}
              </Text>
            ))}
            {library && (
              <Text size="xs" c="dimmed">
                {t('form.sourcesHint')}
              </Text>
            )}
          </Stack>
          <SourcePicker
            onAdd={(added) => {
              form.setFieldValue('sources', addSources(form.values.sources, added));
              form.clearFieldError('sources');
            }}
          />
          <FormActions mutation={save} form={form} onCancel={close} submitTestId="library-save" />
        </Stack>
      </form>
    </Modal>
  );
}
