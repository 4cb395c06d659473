import { useEffect, useMemo, useState } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Group,
  Modal,
  MultiSelect,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle } from '@tabler/icons-react';
import {
  OUTBOUND_WEBHOOK_CONTENT_TYPES,
  OUTBOUND_WEBHOOK_MASK,
  OUTBOUND_WEBHOOK_METHODS,
  endpoints,
  type OutboundWebhook,
  type OutboundWebhookContentType,
  type OutboundWebhookVariable,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../api/client.js';
import { useEndpointMutation } from '../../../api/endpoint-hooks.js';
import { useSession } from '../../../session/session.js';
import { ConfirmDialog } from '../../../shell/confirm-dialog.js';
import { KeyValueTable } from './key-value-table.js';
import { libraryOptions, type SubscribableLibrary } from './library-options.js';
import { resolveTemplateTarget } from './template-cursor.js';
import { useTemplateTarget } from './use-template-target.js';
import { VariablePicker } from './variable-picker.js';
import {
  emptyWebhookValues,
  isDefaultBody,
  privateNetworkHint,
  serverFieldErrors,
  storedSensitiveKeys,
  switchContentType,
  toWebhookRequest,
  validateWebhookForm,
  webhookFormChanged,
  webhookToValues,
  type DefaultBodies,
  type WebhookFormValues,
} from './webhook-form.js';
import { contentTypeKey } from './webhooks-messages.js';
import { MONOSPACE_INPUT } from './template-input-styles.js';
import { FormActions } from '../../../shell/form-actions.js';

/**
 * Creates an endpoint, or changes one (`endpoint` given). Mounted while open; reports whether it holds
 * unsaved edits, and asks before throwing them away.
 */
export function EndpointEditor({
  endpoint,
  defaults,
  variables,
  libraries,
  onClose,
  onDirtyChange,
}: {
  endpoint: OutboundWebhook | undefined;
  defaults: DefaultBodies;
  variables: readonly OutboundWebhookVariable[];
  libraries: readonly SubscribableLibrary[];
  onClose: () => void;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('webhooks');
  const isAdmin = useSession().user?.role === 'admin';
  const [initial] = useState(() => (endpoint ? webhookToValues(endpoint) : emptyWebhookValues(defaults)));
  const stored = useMemo(() => storedSensitiveKeys(endpoint), [endpoint]);
  const form = useForm<WebhookFormValues>({
    mode: 'controlled',
    initialValues: initial,
    validate: (values) =>
      validateWebhookForm(values, stored, t('form.orphanMask', { mask: OUTBOUND_WEBHOOK_MASK })),
  });
  const template = useTemplateTarget(form);
  const [confirmingDiscard, setConfirmingDiscard] = useState(false);
  const changed = webhookFormChanged(form.values, initial);
  useEffect(() => onDirtyChange(changed), [changed, onDirtyChange]);
  useEffect(() => () => onDirtyChange(false), [onDirtyChange]);

  const save = useEndpointMutation(
    (call, values: WebhookFormValues) =>
      endpoint
        ? call(endpoints.media.updateOutboundWebhook, {
            params: { id: endpoint.id },
            body: toWebhookRequest(values),
          })
        : call(endpoints.media.createOutboundWebhook, { body: toWebhookRequest(values) }),
    // The endpoints' path is the prefix of the libraries and deliveries too: all are read again.
    [endpoints.media.listOutboundWebhooks],
  );
  const requestClose = () => (changed ? setConfirmingDiscard(true) : onClose());

  const values = form.values;
  const urlMasked = endpoint?.urlSensitive === true && values.url === endpoint.url;
  const contentTypeLabel = (type: OutboundWebhookContentType) => t(contentTypeKey(type));
  const resolved = resolveTemplateTarget(template.target, values);
  const targetLabel =
    resolved.field === 'url' || resolved.field === 'body'
      ? t(`variables.fields.${resolved.field}`)
      : t(resolved.field === 'query' ? 'variables.fields.queryValue' : 'variables.fields.headerValue', {
          key: resolved.rowKey,
        });
  const urlBinding = template.bind({ field: 'url' });
  const bodyBinding = template.bind({ field: 'body' });
  const withFocus = <E,>(props: { onFocus?: unknown }, onFocus: (event: E) => void) => ({
    onFocus: (event: E) => {
      (props.onFocus as ((e: E) => void) | undefined)?.(event);
      onFocus(event);
    },
  });
  const urlProps = form.getInputProps('url');
  const bodyProps = form.getInputProps('body');

  return (
    <>
      <Modal
        opened
        onClose={requestClose}
        size="xl"
        title={
          <Group gap="xs">
            <Text fw={600}>
              {endpoint ? t('form.editTitle', { name: endpoint.name }) : t('form.createTitle')}
            </Text>
            {changed && (
              <Badge color="orange" variant="light" data-testid="webhook-editor-unsaved">
                {t('section.unsaved')}
              </Badge>
            )}
          </Group>
        }
      >
        <form
          noValidate
          data-testid="webhook-form"
          onSubmit={form.onSubmit((submitted) =>
            save.mutate(submitted, {
              onSuccess: (saved) => {
                notifications.show({
                  color: 'green',
                  message: t(endpoint ? 'form.saved' : 'form.created', { name: saved.name }),
                });
                onDirtyChange(false);
                onClose();
              },
              onError: (error) => {
                if (error instanceof ApiError && error.code === 'VALIDATION_FAILED') {
                  form.setErrors(serverFieldErrors(error.details, submitted));
                }
              },
            }),
          )}
        >
          <Stack gap="sm">
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              <TextInput
                label={t('form.name')}
                description={t('form.nameHint')}
                required
                data-autofocus
                data-testid="webhook-name"
                {...form.getInputProps('name')}
              />
              <Select
                label={t('form.method')}
                data={[...OUTBOUND_WEBHOOK_METHODS]}
                allowDeselect={false}
                data-testid="webhook-method"
                {...form.getInputProps('method')}
              />
            </SimpleGrid>
            <Group justify="flex-end" gap="xs">
              <VariablePicker variables={variables} targetLabel={targetLabel} onPick={template.insert} />
            </Group>
            <TextInput
              label={t('form.url')}
              description={
                urlMasked ? t('form.urlMasked') : t('form.urlHint', { example: '{{urlencode.media.title}}' })
              }
              required
              styles={MONOSPACE_INPUT}
              data-testid="webhook-url"
              {...urlProps}
              {...withFocus(urlProps, urlBinding.onFocus)}
            />
            <Select
              label={t('form.contentType')}
              data={OUTBOUND_WEBHOOK_CONTENT_TYPES.map((type) => ({
                value: type,
                label: contentTypeLabel(type),
              }))}
              allowDeselect={false}
              data-testid="webhook-content-type"
              value={values.contentType}
              onChange={(next) => {
                if (!next) return;
                form.setValues(switchContentType(values, next, defaults));
              }}
            />
            <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
              <Switch
                label={t('form.enabled')}
                description={t('form.enabledHint')}
                data-testid="webhook-enabled"
                {...form.getInputProps('enabled', { type: 'checkbox' })}
              />
              <Switch
                label={t('form.urlSensitive')}
                description={t('form.urlSensitiveHint')}
                data-testid="webhook-url-sensitive"
                {...form.getInputProps('urlSensitive', { type: 'checkbox' })}
              />
              <Switch
                label={t('form.allowPrivateNetwork')}
                description={t(privateNetworkHint(isAdmin, values.allowPrivateNetwork))}
                color="orange"
                // Only administrators may switch it on; others may only switch off what an administrator allowed.
                disabled={!isAdmin && !values.allowPrivateNetwork}
                data-testid="webhook-allow-private"
                {...form.getInputProps('allowPrivateNetwork', { type: 'checkbox' })}
              />
            </SimpleGrid>
            {values.allowPrivateNetwork && (
              <Alert
                color="orange"
                variant="light"
                icon={<IconAlertTriangle size={18} />}
                data-testid="webhook-private-warning"
              >
                {t('form.privateWarning')}
              </Alert>
            )}
            <KeyValueTable form={form} field="query" bindTemplate={template.bind} />
            <KeyValueTable form={form} field="headers" bindTemplate={template.bind} />
            <Textarea
              label={t('form.body')}
              description={values.method === 'GET' ? t('form.bodyGet') : undefined}
              autosize
              minRows={6}
              maxRows={18}
              styles={MONOSPACE_INPUT}
              spellCheck={false}
              data-testid="webhook-body"
              {...bodyProps}
              {...withFocus(bodyProps, bodyBinding.onFocus)}
            />
            {!isDefaultBody(values.body, defaults) && (
              <Anchor
                component="button"
                type="button"
                size="xs"
                ta="left"
                onClick={() => form.setFieldValue('body', defaults[values.contentType])}
                data-testid="webhook-default-body"
              >
                {t('form.useDefaultBody', { type: contentTypeLabel(values.contentType) })}
              </Anchor>
            )}
            <MultiSelect
              label={t('form.libraries')}
              description={t('form.librariesHint')}
              placeholder={values.libraryIds.length === 0 ? t('form.librariesPlaceholder') : undefined}
              data={libraryOptions(libraries, values.libraryIds, (id) => t('form.deletedLibrary', { id }))}
              searchable
              clearable
              nothingFoundMessage={t('common:noData')}
              data-testid="webhook-libraries"
              {...form.getInputProps('libraryIds')}
            />
            <FormActions mutation={save} onCancel={requestClose} submitTestId="webhook-save" />
          </Stack>
        </form>
      </Modal>
      <ConfirmDialog
        opened={confirmingDiscard}
        title={t('form.discardTitle')}
        message={t('form.discardMessage')}
        confirmLabel={t('form.discard')}
        onClose={() => setConfirmingDiscard(false)}
        onConfirm={() => {
          setConfirmingDiscard(false);
          onDirtyChange(false);
          onClose();
        }}
      />
    </>
  );
}
