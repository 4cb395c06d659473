import { Modal, NumberInput, SimpleGrid, Stack, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { endpoints, type NodeView, updateNodeRequestSchema } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { zodValidate } from '../../forms/zod-form.js';
import { AddressFields } from './address-fields.js';
import {
  editValuesFrom,
  localizeFormErrors,
  markEmptyRequired,
  REQUIRED_NODE_FIELDS,
  toUpdateRequest,
  type EditNodeValues,
} from './node-form.js';
import { editableFields } from './node-status.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { FormActions } from '../../shell/form-actions.js';

export function EditNodeModal({
  node,
  opened,
  onClose,
}: {
  node: NodeView;
  opened: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation('nodes');
  return (
    <Modal opened={opened} onClose={onClose} title={t('edit.title', { name: node.name })} size="lg">
      {opened && <EditNodeForm node={node} onClose={onClose} />}
    </Modal>
  );
}

function EditNodeForm({ node, onClose }: { node: NodeView; onClose: () => void }) {
  const { t } = useTranslation('nodes');
  const fields = editableFields(node);
  const validate = zodValidate(updateNodeRequestSchema, (values: EditNodeValues) =>
    toUpdateRequest(node, values),
  );
  const form = useForm<EditNodeValues>({
    initialValues: editValuesFrom(node),
    validate: (values) => {
      const { '': _nothingChanged, ...errors } = validate(values);
      return markEmptyRequired(
        localizeFormErrors(errors, (key) => t(key)),
        values,
        REQUIRED_NODE_FIELDS,
        t('common:validation.required'),
      );
    },
  });
  const save = useEndpointMutation(
    (call, body: Record<string, unknown>) =>
      call(endpoints.config.updateNode, { params: { nodeId: node.nodeId }, body }),
    [endpoints.config.listNodes],
  );
  const changes = toUpdateRequest(node, form.values);
  const unchanged = Object.keys(changes).length === 0;

  return (
    <form
      noValidate
      data-testid="node-edit-form"
      onSubmit={form.onSubmit((values) =>
        save.mutate(toUpdateRequest(node, values), {
          onSuccess: () => {
            notifications.show({ color: 'green', message: t('edit.done') });
            onClose();
          },
        }),
      )}
    >
      <Stack>
        <TextInput
          label={t('form.name')}
          required
          {...form.getInputProps('name')}
          data-testid="node-form-name"
        />
        {fields.expectedAddress && (
          <SimpleGrid cols={{ base: 1, sm: fields.listenPort ? 3 : 2 }} spacing="sm">
            <TextInput
              label={t('form.expectedHost')}
              description={t('form.expectedHostHelp')}
              required
              {...form.getInputProps('expectedHost')}
            />
            <NumberInput
              label={t('form.expectedPort')}
              description={
                node.serviceType === 'svc-play-agent'
                  ? t('form.expectedPortPlayAgent')
                  : t('form.expectedPortStorage')
              }
              min={1}
              max={65535}
              allowDecimal={false}
              allowNegative={false}
              hideControls
              {...form.getInputProps('expectedPort')}
            />
            {fields.listenPort && (
              <NumberInput
                label={t('form.listenPort')}
                description={t('form.listenPortHelp')}
                min={1}
                max={65535}
                allowDecimal={false}
                allowNegative={false}
                hideControls
                {...form.getInputProps('listenPort')}
              />
            )}
          </SimpleGrid>
        )}
        <AddressFields
          inputProps={(path) => form.getInputProps(path)}
          httpsOnly={fields.externalAddressRequired}
          description={
            fields.externalAddressRequired ? t('form.manualAddressHelp') : t('form.externalAddressHelp')
          }
        />
        <Textarea label={t('form.note')} autosize minRows={2} maxRows={6} {...form.getInputProps('note')} />
        <FormActions
          mutation={save}
          form={form}
          onCancel={onClose}
          submitTestId="node-edit-submit"
          submitDisabled={unchanged}
        />
      </Stack>
    </form>
  );
}
