import { useState } from 'react';
import {
  Alert,
  Button,
  Group,
  Modal,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import {
  createNodeRequestSchema,
  type CreateNodeResponse,
  type Edition,
  type EndpointBodyInput,
  endpoints,
  type LicenseStatusResponse,
  type ListNodesResponse,
  type NodeServiceType,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { zodValidate } from '../../forms/zod-form.js';
import { AddressFields } from './address-fields.js';
import { CreateNodeError } from './create-node-error.js';
import { slotUsage } from './licence-slots.js';
import { NodeCredentials } from './node-credentials.js';
import {
  emptyCreateValues,
  localizeFormErrors,
  markEmptyRequired,
  REQUIRED_NODE_FIELDS,
  toCreateRequest,
  type CreateNodeValues,
} from './node-form.js';
import { nodeIdHint } from './node-id.js';
import { serviceTypeKey } from './node-status.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';

const SERVICE_TYPES: NodeServiceType[] = [
  'svc-control-storage',
  'svc-play-agent',
  'manual-play-agent-endpoint',
];

export interface CreateNodePreset {
  nodeId: string;
  serviceType: NodeServiceType;
}

export interface CreateNodeContext {
  edition: Edition;
  slotsUsed: ListNodesResponse['slotsUsed'];
  licence: LicenseStatusResponse | undefined;
}

/** "Add node": the form, then the new node's id with its install commands or endpoint token. */
export function CreateNodeModal({
  opened,
  onClose,
  context,
  preset,
}: {
  opened: boolean;
  onClose: () => void;
  context: CreateNodeContext;
  /** Id and type to start from (a node awaiting install on a target machine). */
  preset?: CreateNodePreset | undefined;
}) {
  const { t } = useTranslation('nodes');
  const [created, setCreated] = useState<CreateNodeResponse | null>(null);
  const close = () => {
    setCreated(null);
    onClose();
  };
  return (
    <Modal
      opened={opened}
      onClose={close}
      size="lg"
      title={created ? t('create.createdTitle', { nodeId: created.node.nodeId }) : t('create.title')}
    >
      {created ? (
        <CreatedNode created={created} onClose={close} />
      ) : (
        opened && <CreateNodeForm context={context} preset={preset} onClose={close} onCreated={setCreated} />
      )}
    </Modal>
  );
}

function CreateNodeForm({
  context,
  preset,
  onClose,
  onCreated,
}: {
  context: CreateNodeContext;
  preset: CreateNodePreset | undefined;
  onClose: () => void;
  onCreated: (answer: CreateNodeResponse) => void;
}) {
  const { t } = useTranslation('nodes');
  const standalone = context.edition === 'STANDALONE';
  const validate = zodValidate(createNodeRequestSchema, (values: CreateNodeValues) =>
    toCreateRequest(values),
  );
  const form = useForm<CreateNodeValues>({
    initialValues: preset
      ? { ...emptyCreateValues(preset.serviceType), nodeId: preset.nodeId }
      : emptyCreateValues(standalone ? 'manual-play-agent-endpoint' : 'svc-control-storage'),
    validateInputOnChange: ['nodeId'],
    validate: (values) => {
      const errors = markEmptyRequired(
        localizeFormErrors(validate(values), (key) => t(key)),
        values,
        REQUIRED_NODE_FIELDS,
        t('common:validation.required'),
      );
      const hint = nodeIdHint(values.nodeId);
      if (errors.nodeId && hint.state === 'invalid') errors.nodeId = t(`form.nodeIdProblem.${hint.problem}`);
      return errors;
    },
  });
  const create = useEndpointMutation(
    // toCreateRequest keeps only the fields of the chosen type; the server's schema checks the rest.
    (call, body: Record<string, unknown>) =>
      call(endpoints.config.createNode, {
        body: body as EndpointBodyInput<typeof endpoints.config.createNode>,
      }),
    [endpoints.config.listNodes],
  );

  const type = form.values.serviceType;
  const manual = type === 'manual-play-agent-endpoint';
  const slots = slotUsage(type, context.slotsUsed, context.licence);
  const hint = nodeIdHint(form.values.nodeId);

  return (
    <form
      noValidate
      data-testid="node-create-form"
      onSubmit={form.onSubmit((values) =>
        create.mutate(toCreateRequest(values), {
          onSuccess: (answer) => {
            notifications.show({
              color: 'green',
              message: t('create.createdTitle', { nodeId: answer.node.nodeId }),
            });
            onCreated(answer);
          },
        }),
      )}
    >
      <Stack>
        <Select
          label={t('form.serviceType')}
          allowDeselect={false}
          data={SERVICE_TYPES.map((value) => ({
            value,
            label:
              standalone && value !== 'manual-play-agent-endpoint'
                ? `${t(serviceTypeKey(value))} (${t('form.typeNeedsDistributed')})`
                : t(serviceTypeKey(value)),
            disabled: standalone && value !== 'manual-play-agent-endpoint',
          }))}
          {...form.getInputProps('serviceType')}
          onChange={(value) => {
            if (!value) return;
            form.setFieldValue('serviceType', value as NodeServiceType);
            form.clearErrors();
            create.reset();
          }}
          data-testid="node-form-type"
        />
        {standalone && (
          <Text size="sm" c="dimmed">
            {t('overview.standaloneHint')}
          </Text>
        )}
        {slots && slots.max !== null && (
          <Alert color={slots.free === 0 ? 'orange' : 'blue'} variant="light" data-testid="node-form-slots">
            {slots.free === 0
              ? t('form.noSlotsLeft', { used: slots.used, max: slots.max })
              : t('form.slotsLeft', { free: slots.free, max: slots.max })}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput
            label={t('form.name')}
            required
            {...form.getInputProps('name')}
            data-testid="node-form-name"
          />
          <TextInput
            label={t('form.nodeId')}
            placeholder="node-…"
            description={hint.state === 'valid' ? t('form.nodeIdValid') : t('form.nodeIdGenerated')}
            {...form.getInputProps('nodeId')}
            data-testid="node-form-node-id"
          />
        </SimpleGrid>
        {!manual && (
          <SimpleGrid cols={{ base: 1, sm: type === 'svc-play-agent' ? 3 : 2 }} spacing="sm">
            <TextInput
              label={t('form.expectedHost')}
              description={t('form.expectedHostHelp')}
              placeholder="10.0.0.5"
              required
              {...form.getInputProps('expectedHost')}
              data-testid="node-form-expected-host"
            />
            <NumberInput
              label={t('form.expectedPort')}
              description={
                type === 'svc-play-agent' ? t('form.expectedPortPlayAgent') : t('form.expectedPortStorage')
              }
              min={1}
              max={65535}
              allowDecimal={false}
              allowNegative={false}
              hideControls
              {...form.getInputProps('expectedPort')}
              data-testid="node-form-expected-port"
            />
            {type === 'svc-play-agent' && (
              <NumberInput
                label={t('form.listenPort')}
                description={t('form.listenPortHelp')}
                min={1}
                max={65535}
                allowDecimal={false}
                allowNegative={false}
                hideControls
                {...form.getInputProps('listenPort')}
                data-testid="node-form-listen-port"
              />
            )}
          </SimpleGrid>
        )}
        <AddressFields
          inputProps={(path) => form.getInputProps(path)}
          httpsOnly={manual}
          description={manual ? t('form.manualAddressHelp') : t('form.externalAddressHelp')}
        />
        <Textarea label={t('form.note')} autosize minRows={2} maxRows={6} {...form.getInputProps('note')} />
        {create.isError && <CreateNodeError error={create.error} form={form} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common:cancel')}
          </Button>
          <Button type="submit" loading={create.isPending} data-testid="node-create-submit">
            {t('create.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function CreatedNode({ created, onClose }: { created: CreateNodeResponse; onClose: () => void }) {
  const { t } = useTranslation('nodes');
  const manual = created.node.serviceType === 'manual-play-agent-endpoint';
  return (
    <Stack data-testid="node-created">
      <Text size="sm">{manual ? t('create.createdManual') : t('create.createdWorker')}</Text>
      <NodeCredentials node={created.node} initialCredentials={created.credentials} />
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          {t('common:close')}
        </Button>
        <Button
          component={Link}
          to={`/console/nodes/${encodeURIComponent(created.node.nodeId)}`}
          onClick={onClose}
          data-testid="node-created-open"
        >
          {t('create.openNode')}
        </Button>
      </Group>
    </Stack>
  );
}
