import type { ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from './error-alert.js';

/** A confirmation before a destructive action, with the action's error shown in place. */
export function ConfirmDialog({
  opened,
  title,
  message,
  confirmLabel,
  onConfirm,
  onClose,
  loading = false,
  error,
  children,
}: {
  opened: boolean;
  title: string;
  message: ReactNode;
  confirmLabel?: string;
  onConfirm: () => void;
  onClose: () => void;
  loading?: boolean;
  error?: unknown;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered data-testid="confirm-dialog">
      <Stack gap="sm">
        <Text size="sm">{message}</Text>
        {children}
        {error ? <ErrorAlert error={error} /> : null}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose}>
            {t('cancel')}
          </Button>
          <Button color="red" onClick={onConfirm} loading={loading} data-testid="confirm-button">
            {confirmLabel ?? t('delete')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
