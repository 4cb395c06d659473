import { useState, type ReactNode } from 'react';
import { Alert, Anchor, Button, Paper, SimpleGrid, Tabs, Text } from '@mantine/core';
import {
  IconArrowLeft,
  IconKey,
  IconLibrary,
  IconLock,
  IconLockOpen,
  IconRoute,
  IconShieldLock,
  IconTrash,
  IconUser,
  IconGauge,
} from '@tabler/icons-react';
import { endpoints, type UserDetail as UserDetailData } from '@svc/contracts';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { formatDateTime } from '../../i18n/format.js';
import { useSession } from '../../session/session.js';
import { PageHeader } from '../../shell/page-route.js';
import { QueryState } from '../../shell/query-state.js';
import { LibraryAccessForm } from './library-access-card.js';
import { useLibraryChoices } from './library-access-form-body.js';
import { NodeAccessForm } from './node-access-card.js';
import { PermissionsForm } from './permissions-form.js';
import { ProfileForm } from './profile-form.js';
import { QuotasCard } from './quotas-card.js';
import { routeOptionsFrom, type RouteOption } from './route-options.js';
import { RoleBadge, StatusBadge } from './user-badges.js';
import { UserActionModals, type UserAction } from './user-action-modals.js';
import { isOwnAccount, mayEditUser } from './user-permissions.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

/** /console/users/:id: one account, its permissions, node and library access and quotas with their use. */
export function UserDetail() {
  const { t } = useTranslation('users');
  const { id = '' } = useParams();
  const query = useEndpointQuery(endpoints.user.getUser, { params: { id } });
  return (
    <>
      <Anchor
        component={Link}
        to="/console/users"
        size="sm"
        mb="xs"
        display="inline-flex"
        style={{ alignItems: 'center', gap: 4 }}
        data-testid="user-back"
      >
        <IconArrowLeft size={14} /> {t('detail.back')}
      </Anchor>
      <QueryState query={query} skeletonRows={8}>
        {(user) => <UserDetailBody key={user.id} user={user} />}
      </QueryState>
    </>
  );
}

/**
 * Play-agent nodes and manual addresses to choose from, when the account may read the node list
 * (permission `node`); otherwise (`known: false`) node ids are typed.
 */
export function useRouteOptions(): { options: RouteOption[]; known: boolean } {
  const session = useSession();
  const allowed = session.can('node');
  const nodes = useEndpointQuery(endpoints.config.listNodes, {}, { enabled: allowed });
  if (!allowed || nodes.isError) return { options: [], known: false };
  return { options: nodes.data ? routeOptionsFrom(nodes.data.nodes) : [], known: true };
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" component="div" style={{ wordBreak: 'break-all' }}>
        {children}
      </Text>
    </div>
  );
}

function UserDetailBody({ user }: { user: UserDetailData }) {
  const { t } = useTranslation('users');
  const navigate = useNavigate();
  const { user: actor } = useSession();
  const [action, setAction] = useState<UserAction | null>(null);
  const routes = useRouteOptions();
  const libraries = useLibraryChoices();
  const editable = actor ? mayEditUser(actor, user) : false;
  const own = actor ? isOwnAccount(actor, user) : false;

  return (
    <div data-testid="user-detail" data-user-id={user.id} data-username={user.username}>
      <PageHeader
        title={user.displayName || user.username}
        actions={
          editable && (
            <>
              <Button
                variant="default"
                leftSection={<IconKey size={16} />}
                onClick={() => setAction('reset-password')}
                data-testid="user-reset-password"
              >
                {t('action.resetPassword')}
              </Button>
              <Button
                variant="default"
                leftSection={user.disabled ? <IconLockOpen size={16} /> : <IconLock size={16} />}
                onClick={() => setAction(user.disabled ? 'enable' : 'disable')}
                data-testid="user-toggle-disabled"
              >
                {user.disabled ? t('action.enable') : t('action.disable')}
              </Button>
              <Button
                color="red"
                variant="light"
                leftSection={<IconTrash size={16} />}
                onClick={() => setAction('delete')}
                data-testid="user-delete"
              >
                {t('action.delete')}
              </Button>
            </>
          )
        }
      />
      <Paper withBorder p="md" radius="md" mb="md">
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 5 }} spacing="sm">
          <Field label={t('detail.username')}>{user.username}</Field>
          <Field label={t('detail.role')}>
            <RoleBadge role={user.role} />
          </Field>
          <Field label={t('detail.status')}>
            <StatusBadge disabled={user.disabled} />
          </Field>
          <Field label={t('detail.createdAt')}>{formatDateTime(user.createdAt)}</Field>
          <Field label={t('detail.updatedAt')}>{formatDateTime(user.updatedAt)}</Field>
        </SimpleGrid>
        {own && (
          <Text size="sm" c="dimmed" mt="sm">
            {t('detail.ownAccount')}
          </Text>
        )}
      </Paper>
      {!editable && (
        <Alert color="yellow" mb="md" data-testid="user-admin-only">
          {t('detail.adminOnly')}
        </Alert>
      )}
      <Tabs defaultValue="profile" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="profile" leftSection={<IconUser size={16} />} data-testid="user-tab-profile">
            {t('detail.tab.profile')}
          </Tabs.Tab>
          <Tabs.Tab
            value="permissions"
            leftSection={<IconShieldLock size={16} />}
            data-testid="user-tab-permissions"
          >
            {t('detail.tab.permissions')}
          </Tabs.Tab>
          <Tabs.Tab
            value="node-access"
            leftSection={<IconRoute size={16} />}
            data-testid="user-tab-node-access"
          >
            {t('detail.tab.nodeAccess')}
          </Tabs.Tab>
          <Tabs.Tab
            value="library-access"
            leftSection={<IconLibrary size={16} />}
            data-testid="user-tab-library-access"
          >
            {t('detail.tab.libraryAccess')}
          </Tabs.Tab>
          <Tabs.Tab value="quotas" leftSection={<IconGauge size={16} />} data-testid="user-tab-quotas">
            {t('detail.tab.quotas')}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="profile">
          <ProfileForm user={user} readOnly={!editable} />
        </Tabs.Panel>
        <Tabs.Panel value="permissions">
          <PermissionsForm user={user} readOnly={!editable} />
        </Tabs.Panel>
        <Tabs.Panel value="node-access">
          <NodeAccessForm user={user} routes={routes} readOnly={!editable} />
        </Tabs.Panel>
        <Tabs.Panel value="library-access">
          {/* Mounted again once the library list arrives, so deleted libraries drop out of the form. */}
          <LibraryAccessForm
            key={libraries.ids ? 'known' : 'unknown'}
            user={user}
            libraries={libraries}
            readOnly={!editable}
          />
        </Tabs.Panel>
        <Tabs.Panel value="quotas">
          <QuotasCard user={user} routes={routes} readOnly={!editable} />
        </Tabs.Panel>
      </Tabs>
      {action && (
        <UserActionModals
          key={action}
          user={user}
          action={action}
          onClose={() => setAction(null)}
          onDeleted={() => void navigate('/console/users')}
        />
      )}
    </div>
  );
}
