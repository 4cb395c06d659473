import { useState } from 'react';
import { Button, Checkbox, Group, Modal, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { endpoints, type CacheFlushResponse } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { useEndpointMutation } from '../../api/endpoint-hooks.js';
import { ErrorAlert } from '../../shell/error-alert.js';

/** Flush of the node's video and image caches; its button stays disabled until the loss is acknowledged. */
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
      <Modal opened={opened} onClose={close} title={t('flush.title')} centered>
        <Stack gap="sm">
          <Text size="sm">{t('flush.body')}</Text>
          <Checkbox
            label={t('flush.understand')}
            checked={understood}
            onChange={(event) => setUnderstood(event.currentTarget.checked)}
            data-testid="flush-understand"
          />
          {flush.error ? <ErrorAlert error={flush.error} /> : null}
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={close}>
              {t('common:cancel')}
            </Button>
            <Button
              color="red"
              disabled={!understood}
              loading={flush.isPending}
              data-testid="flush-confirm"
              onClick={() =>
                flush.mutate(undefined, {
                  onSuccess: (result) => {
                    close();
                    notifications.show({ color: 'green', message: report(result) });
                  },
                })
              }
            >
              {t('flush.confirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
