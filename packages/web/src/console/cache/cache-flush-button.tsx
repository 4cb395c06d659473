import { useState } from 'react';
import { Button, Checkbox } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { endpoints, type CacheFlushResponse } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { ConfirmDialog } from '../../shell/confirm-dialog.js';

/** Flush of the node's video and image caches, behind an explicit "not recoverable" confirmation. */
export function CacheFlushButton({ nodeId }: { nodeId: string }) {
  const { t } = useTranslation('cache');
  const [opened, setOpened] = useState(false);
  const [understood, setUnderstood] = useState(false);
  const flush = useEndpointMutation(
    (call, _: void) => call(endpoints.nodeCache.flushNodeCache, { params: { nodeId } }),
    [endpoints.nodeCache.listNodeVfsItems, endpoints.nodeCache.getNodeCacheDiskUsage],
  );
  const close = () => {
    setOpened(false);
    setUnderstood(false);
    flush.reset();
  };
  const report = (result: CacheFlushResponse) =>
    [
      t('flush.done', result.vfs),
      ...Object.entries(result.others).map(([name, other]) =>
        t('flush.other', { name, state: other.ok ? t('flush.ok') : (other.detail ?? '') }),
      ),
    ].join(' ');
  return (
    <>
      <Button color="red" onClick={() => setOpened(true)}>
        {t('flush.button')}
      </Button>
      <ConfirmDialog
        opened={opened}
        title={t('flush.title')}
        message={t('flush.body')}
        confirmLabel={t('flush.confirm')}
        onConfirm={() => {
          if (!understood) return;
          flush.mutate(undefined, {
            onSuccess: (result) => {
              close();
              notifications.show({ color: 'green', message: report(result) });
            },
          });
        }}
        onClose={close}
        loading={flush.isPending}
        error={flush.error}
      >
        <Checkbox
          label={t('flush.understand')}
          checked={understood}
          onChange={(event) => setUnderstood(event.currentTarget.checked)}
          data-testid="flush-understand"
        />
      </ConfirmDialog>
    </>
  );
}
