import { Badge } from '@mantine/core';
import type { ManagedUser } from '@svc/contracts';
import { useTranslation } from 'react-i18next';

export function RoleBadge({ role }: { role: ManagedUser['role'] }) {
  const { t } = useTranslation('users');
  return (
    <Badge
      color={role === 'admin' ? 'grape' : 'gray'}
      variant="light"
      data-testid="user-role"
      data-role={role}
    >
      {t(`role.${role}`)}
    </Badge>
  );
}

export function StatusBadge({ disabled }: { disabled: boolean }) {
  const { t } = useTranslation('users');
  return (
    <Badge
      color={disabled ? 'red' : 'green'}
      variant="light"
      data-testid="user-status"
      data-disabled={String(disabled)}
    >
      {disabled ? t('status.disabled') : t('status.enabled')}
    </Badge>
  );
}
