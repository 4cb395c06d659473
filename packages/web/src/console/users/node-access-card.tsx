import { Paper, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { nodeAccessSchema, type NodeAccess, type UserDetail, endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { zodValidate } from '../../forms/zod-form.js';
import { NodeAccessFormBody } from './node-access-form-body.js';
import {
  nodeAccessFormErrors,
  nodeAccessValuesFrom,
  toNodeAccessBody,
  type NodeAccessValues,
} from './node-access-form.js';
import type { RouteOption } from './route-options.js';
import { SaveRow } from './save-row.js';

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
  const save = useEndpointMutation(
    (call, body: NodeAccess) => call(endpoints.user.setUserNodeAccess, { params: { id: user.id }, body }),
    [endpoints.user.listUsers],
  );
  const empty =
    form.values.mode === 'ALLOW_LIST' && form.values.nodes.length === 0 && form.values.endpoints.length === 0;

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
          <NodeAccessFormBody
            form={form}
            routes={routes}
            readOnly={readOnly}
            saveError={save.error}
            modeMessages="nodeAccess"
            notices={
              empty && (
                <Text size="sm" c="dimmed" data-testid="node-access-empty">
                  {t('nodeAccess.emptyList')}
                </Text>
              )
            }
          />
          <SaveRow readOnly={readOnly} pending={save.isPending} testId="node-access-save" />
        </Stack>
      </form>
    </Paper>
  );
}
