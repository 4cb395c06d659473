import {
  Alert,
  Button,
  Group,
  MultiSelect,
  Paper,
  Radio,
  SimpleGrid,
  Stack,
  TagsInput,
  Text,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import {
  nodeAccessSchema,
  type NodeAccess,
  type NodeAccessMode,
  type RouteKind,
  type UserDetail,
} from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useApiMutation } from '../../api/hooks.js';
import { zodValidate } from '../../forms/zod-form.js';
import { ErrorAlert } from '../../shell/error-alert.js';
import {
  nodeAccessFormErrors,
  nodeAccessValuesFrom,
  toNodeAccessBody,
  type NodeAccessValues,
} from './node-access-form.js';
import { routeLabel, selectItems, unknownRoutesOf, type RouteOption } from './route-options.js';
import { USERS_PATH, userPath } from './user-paths.js';

const MODES: NodeAccessMode[] = ['ALL', 'ALLOW_LIST', 'NONE'];

export interface RouteChoices {
  options: RouteOption[];
  /** The node list could be read: routes are picked from it; otherwise ids are typed. */
  known: boolean;
}

/** Which playback routes the user may use: all, a list of play-agent nodes and manual addresses, or none. */
export function NodeAccessForm({
  user,
  routes,
  readOnly,
}: {
  user: UserDetail;
  routes: RouteChoices;
  readOnly: boolean;
}) {
  const { t } = useTranslation('users');
  const validate = zodValidate(nodeAccessSchema, toNodeAccessBody);
  const form = useForm<NodeAccessValues>({
    initialValues: nodeAccessValuesFrom(user.nodeAccess),
    validate: (values) => nodeAccessFormErrors(validate(values), values),
  });
  const save = useApiMutation(
    (api, body: NodeAccess) =>
      api(`${userPath(user.id)}/node-access`, { method: 'PUT', body, schema: nodeAccessSchema }),
    [USERS_PATH],
  );
  const unknown = unknownRoutesOf(save.error);
  const listed = form.values.mode === 'ALLOW_LIST';
  const empty = listed && form.values.nodes.length === 0 && form.values.endpoints.length === 0;

  const listInput = (kind: RouteKind, field: 'nodes' | 'endpoints', label: string) => {
    const common = {
      label,
      disabled: readOnly,
      clearable: !readOnly,
      ...form.getInputProps(field),
      'data-testid': `node-access-${field}`,
    };
    return routes.known ? (
      <MultiSelect
        {...common}
        data={selectItems(routes.options, kind, form.values[field])}
        placeholder={t('nodeAccess.pickPlaceholder')}
        searchable
        nothingFoundMessage={t('common:noData')}
      />
    ) : (
      <TagsInput {...common} description={t('nodeAccess.typeHelp')} />
    );
  };

  return (
    <Paper withBorder p="md" radius="md">
      <form
        noValidate
        data-testid="user-node-access-form"
        onSubmit={form.onSubmit((values) =>
          save.mutate(toNodeAccessBody(values), {
            onSuccess: (saved) => {
              form.resetDirty(nodeAccessValuesFrom(saved));
              notifications.show({ color: 'green', message: t('nodeAccess.done') });
            },
          }),
        )}
      >
        <Stack>
          <Radio.Group
            label={t('nodeAccess.mode')}
            {...form.getInputProps('mode')}
            data-testid="node-access-mode"
          >
            <Stack gap="sm" mt="xs">
              {MODES.map((mode) => (
                <Radio
                  key={mode}
                  value={mode}
                  disabled={readOnly}
                  label={t(`nodeAccess.modes.${mode}`)}
                  description={t(`nodeAccess.modes.${mode}_help`)}
                  data-testid={`node-access-mode-${mode}`}
                />
              ))}
            </Stack>
          </Radio.Group>
          {listed && (
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              {listInput('node', 'nodes', t('nodeAccess.nodes'))}
              {listInput('endpoint', 'endpoints', t('nodeAccess.endpoints'))}
            </SimpleGrid>
          )}
          {empty && (
            <Text size="sm" c="dimmed" data-testid="node-access-empty">
              {t('nodeAccess.emptyList')}
            </Text>
          )}
          {save.isError && <ErrorAlert error={save.error} />}
          {unknown.length > 0 && (
            <Alert color="red" variant="outline" data-testid="node-access-unknown">
              {t('nodeAccess.unknown', {
                ids: unknown.map((route) => routeLabel(route, routes.options)).join(', '),
              })}
            </Alert>
          )}
          {!readOnly && (
            <Group justify="flex-end">
              <Button type="submit" loading={save.isPending} data-testid="node-access-save">
                {t('common:save')}
              </Button>
            </Group>
          )}
        </Stack>
      </form>
    </Paper>
  );
}
