import { useState } from 'react';
import { ActionIcon, Anchor, Badge, Button, Group, Menu, VisuallyHidden } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  IconDots,
  IconKey,
  IconLock,
  IconLockOpen,
  IconPencil,
  IconTrash,
  IconUserPlus,
} from '@tabler/icons-react';
import { type ManagedUser, endpoints } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';
import { formatDateTime } from '../../i18n/format.js';
import { useSession } from '../../session/session.js';
import { PageHeader } from '../../shell/page-route.js';
import { PagedTable, type TableColumn } from '../../shell/paged-table.js';
import { QueryState } from '../../shell/query-state.js';
import { CreateUserModal } from './create-user-modal.js';
import { RoleBadge, StatusBadge } from './user-badges.js';
import { UserActionModals, type UserAction } from './user-action-modals.js';
import { userPagePath } from './user-paths.js';
import { isOwnAccount, mayEditUser } from './user-permissions.js';
import { PageSizeSelect, SearchFilter, useListPaging } from '../../shell/list-filters.js';

/** /console/users: search (debounced), paging, and each account's actions. */
export function UsersList() {
  const { t } = useTranslation('users');
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search.trim(), 300);
  const { page, setPage, pageSize, setPageSize, refiltered } = useListPaging();
  const [creating, setCreating] = useState(false);
  const [pending, setPending] = useState<{ user: ManagedUser; action: UserAction } | null>(null);
  const { user: actor } = useSession();
  const query = useEndpointQuery(
    endpoints.user.listUsers,
    { query: { page, pageSize, search: debouncedSearch || undefined } },
    { keepPrevious: true },
  );
  const columns: TableColumn<ManagedUser>[] = [
    {
      key: 'username',
      header: t('column.username'),
      cell: (user) => <UsernameCell user={user} own={actor ? isOwnAccount(actor, user) : false} />,
    },
    { key: 'displayName', header: t('column.displayName'), cell: (user) => user.displayName },
    { key: 'role', header: t('column.role'), cell: (user) => <RoleBadge role={user.role} /> },
    { key: 'status', header: t('column.status'), cell: (user) => <StatusBadge disabled={user.disabled} /> },
    {
      key: 'createdAt',
      header: t('column.createdAt'),
      cell: (user) => formatDateTime(user.createdAt),
      wrap: 'never',
    },
    {
      key: 'actions',
      header: <VisuallyHidden>{t('common:actions')}</VisuallyHidden>,
      cell: (user) => (
        <UserActionsMenu
          user={user}
          editable={actor ? mayEditUser(actor, user) : false}
          onAction={(action) => setPending({ user, action })}
        />
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title={t('common:nav.users')}
        actions={
          <Button
            leftSection={<IconUserPlus size={16} />}
            onClick={() => setCreating(true)}
            data-testid="user-create-button"
          >
            {t('create')}
          </Button>
        }
      />
      <Group mb="md" gap="sm" align="flex-end">
        <SearchFilter
          label={t('searchLabel')}
          placeholder={t('searchPlaceholder')}
          value={search}
          onChange={refiltered(setSearch)}
          width={280}
          testId="users-search"
        />
        <PageSizeSelect label={t('pageSize')} value={pageSize} onChange={setPageSize} />
      </Group>
      <QueryState query={query} skeletonRows={8}>
        {(data) => (
          <PagedTable
            testId="users"
            minWidth={760}
            columns={columns}
            rows={data.items}
            rowKey={(user) => user.id}
            rowAttributes={(user) => ({ 'data-testid': 'user-row', 'data-username': user.username })}
            emptyText={debouncedSearch ? t('noMatch') : t('common:noData')}
            paging={{
              page,
              pageSize: data.pageSize,
              total: data.total,
              onPageChange: setPage,
              totalText: t('total', { count: data.total }),
            }}
          />
        )}
      </QueryState>
      <CreateUserModal opened={creating} onClose={() => setCreating(false)} />
      {pending && (
        <UserActionModals
          key={`${pending.user.id}-${pending.action}`}
          user={pending.user}
          action={pending.action}
          onClose={() => setPending(null)}
        />
      )}
    </>
  );
}

function UsernameCell({ user, own }: { user: ManagedUser; own: boolean }) {
  const { t } = useTranslation('users');
  return (
    <Group gap={6} wrap="nowrap">
      <Anchor component={Link} to={userPagePath(user.id)} fw={500} data-testid="user-link">
        {user.username}
      </Anchor>
      {own && (
        <Badge size="xs" variant="outline">
          {t('you')}
        </Badge>
      )}
    </Group>
  );
}

function UserActionsMenu({
  user,
  editable,
  onAction,
}: {
  user: ManagedUser;
  editable: boolean;
  onAction: (action: UserAction) => void;
}) {
  const { t } = useTranslation('users');
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon
          variant="subtle"
          color="gray"
          aria-label={t('actionsFor', { name: user.username })}
          data-testid="user-actions"
        >
          <IconDots size={18} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item component={Link} to={userPagePath(user.id)} leftSection={<IconPencil size={16} />}>
          {t('action.open')}
        </Menu.Item>
        {editable && (
          <>
            <Menu.Item
              leftSection={<IconKey size={16} />}
              onClick={() => onAction('reset-password')}
              data-testid="user-action-reset-password"
            >
              {t('action.resetPassword')}
            </Menu.Item>
            <Menu.Item
              leftSection={user.disabled ? <IconLockOpen size={16} /> : <IconLock size={16} />}
              onClick={() => onAction(user.disabled ? 'enable' : 'disable')}
              data-testid={user.disabled ? 'user-action-enable' : 'user-action-disable'}
            >
              {user.disabled ? t('action.enable') : t('action.disable')}
            </Menu.Item>
            <Menu.Divider />
            <Menu.Item
              color="red"
              leftSection={<IconTrash size={16} />}
              onClick={() => onAction('delete')}
              data-testid="user-action-delete"
            >
              {t('action.delete')}
            </Menu.Item>
          </>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}
