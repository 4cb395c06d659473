import { useState } from 'react';
import { Alert, Button, Checkbox, Group, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { endpoints, type NodeView } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../shell/error-alert.js';
import { canSendUninstallOnDelete, type LifecycleAction } from './node-status.js';
import { endpointPath } from '../../api/endpoint-client.js';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';

export type NodeAction = LifecycleAction | 'delete';

/** The confirmation of a remote upgrade, a remote uninstall or a deletion; nothing happens before "confirm". */
export function NodeActionModal({
  node,
  action,
  onClose,
  onDeleted,
}: {
  node: NodeView;
  action: NodeAction | null;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const { t } = useTranslation('nodes');
  return (
    <Modal
      opened={action !== null}
      onClose={onClose}
      title={action ? t(`${action}Modal.title`, { name: node.name }) : ''}
      data-testid="node-action-modal"
    >
      {action === 'delete' ? (
        <DeleteBody node={node} onClose={onClose} onDeleted={onDeleted} />
      ) : action ? (
        <LifecycleBody key={action} node={node} action={action} onClose={onClose} />
      ) : null}
    </Modal>
  );
}

function LifecycleBody({
  node,
  action,
  onClose,
}: {
  node: NodeView;
  action: LifecycleAction;
  onClose: () => void;
}) {
  const { t } = useTranslation('nodes');
  const run = useEndpointMutation(
    (call, nodeId: string) =>
      call(action === 'upgrade' ? endpoints.config.upgradeNode : endpoints.config.uninstallNode, {
        params: { nodeId },
      }),
    [endpoints.config.listNodes],
  );
  return (
    <Stack>
      <Text size="sm">{t(`${action}Modal.body`)}</Text>
      {run.isError && <ErrorAlert error={run.error} />}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          {t('common:cancel')}
        </Button>
        <Button
          color={action === 'uninstall' ? 'red' : 'blue'}
          loading={run.isPending}
          data-testid="node-action-confirm"
          onClick={() =>
            run.mutate(node.nodeId, {
              onSuccess: () => {
                notifications.show({ color: 'green', message: t(`${action}Modal.done`) });
                onClose();
              },
            })
          }
        >
          {t(`${action}Modal.confirm`)}
        </Button>
      </Group>
    </Stack>
  );
}

function DeleteBody({
  node,
  onClose,
  onDeleted,
}: {
  node: NodeView;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const { t } = useTranslation('nodes');
  const queryClient = useQueryClient();
  const offerUninstall = canSendUninstallOnDelete(node);
  const online = node.status === 'ONLINE';
  const [sendUninstall, setSendUninstall] = useState(offerUninstall && online);
  const remove = useEndpointMutation((call, variables: { nodeId: string; sendUninstall: boolean }) =>
    call(endpoints.config.deleteNode, {
      params: { nodeId: variables.nodeId },
      query: variables.sendUninstall ? { sendUninstall: 'true' } : {},
    }),
  );

  const confirm = () =>
    remove.mutate(
      { nodeId: node.nodeId, sendUninstall: offerUninstall && sendUninstall },
      {
        onSuccess: (answer) => {
          const warn = answer.uninstall === 'not-sent' || answer.uninstall === 'unreachable';
          const message =
            answer.uninstall === 'sent'
              ? t('deleteModal.result.sent')
              : answer.uninstall === 'unreachable'
                ? t('deleteModal.result.unreachable')
                : answer.uninstall === 'not-sent'
                  ? t('deleteModal.result.notSent', { message: answer.message })
                  : t('deleteModal.done');
          notifications.show({ color: warn ? 'yellow' : 'green', message, autoClose: warn ? 10_000 : 4_000 });
          onClose();
          onDeleted?.();
          // The deleted node's own query is dropped (a refetch would answer 404), the list is fetched again.
          queryClient.removeQueries({
            predicate: (query) =>
              query.queryKey[1] === endpointPath(endpoints.config.getNode, { nodeId: node.nodeId }),
          });
          void queryClient.invalidateQueries({
            predicate: (query) => query.queryKey[1] === endpoints.config.listNodes.path,
          });
        },
      },
    );

  return (
    <Stack>
      <Text size="sm">{t('deleteModal.body', { nodeId: node.nodeId })}</Text>
      {offerUninstall && online && (
        <Checkbox
          label={t('deleteModal.sendUninstall')}
          description={t('deleteModal.sendUninstallHelp')}
          checked={sendUninstall}
          onChange={(event) => setSendUninstall(event.currentTarget.checked)}
          data-testid="node-delete-send-uninstall"
        />
      )}
      {offerUninstall && !online && (
        <Alert color="yellow" data-testid="node-delete-not-online">
          {t('deleteModal.notOnline')}
        </Alert>
      )}
      {remove.isError && <ErrorAlert error={remove.error} />}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          {t('common:cancel')}
        </Button>
        <Button color="red" loading={remove.isPending} onClick={confirm} data-testid="node-action-confirm">
          {t('deleteModal.confirm')}
        </Button>
      </Group>
    </Stack>
  );
}
