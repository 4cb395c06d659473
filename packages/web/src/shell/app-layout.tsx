import { Suspense } from 'react';
import {
  AppShell,
  Burger,
  Group,
  Image,
  Menu,
  NavLink,
  ScrollArea,
  Skeleton,
  Stack,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconLogout } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { useSession } from '../session/session.js';
import { systemNameOf, useBranding } from './branding.js';
import { HeaderControls } from './header-controls.js';
import { mayOpen, type PageEntry } from './page-registry.js';

export function PageSkeleton() {
  return (
    <Stack gap="sm" aria-busy="true" data-testid="loading">
      <Skeleton height={34} width="40%" />
      <Skeleton height={120} />
      <Skeleton height={220} />
    </Stack>
  );
}

/** Pages the signed-in account may open: all portal pages, console pages by menu permission. */
export function usePermittedPages(pages: PageEntry[]): PageEntry[] {
  const session = useSession();
  return pages.filter((page) => mayOpen(page, (permission) => session.can(permission)));
}

/** The shell of both apps: header with branding and switches, navigation by permission, the page. */
export function AppLayout({ pages, base }: { pages: PageEntry[]; base: '/console' | '/portal' }) {
  const { t } = useTranslation();
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const branding = useBranding();
  const [opened, { toggle, close }] = useDisclosure();
  const permitted = usePermittedPages(pages);

  if (!session.user) {
    return <Navigate to={`${base}/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  }
  const systemName = systemNameOf(branding);

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <a href="#main" className="skip-link">
        {t('skipToContent')}
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={t('toggleNavigation')}
            />
            {branding?.logoUrl && <Image src={branding.logoUrl} alt="" h={28} w={28} fit="contain" />}
            <Text fw={700} truncate="end" maw={{ base: 140, sm: 320 }} data-testid="system-name">
              {systemName}
            </Text>
            <Text size="sm" c="dimmed" visibleFrom="sm">
              {t(base === '/console' ? 'appConsole' : 'appPortal')}
            </Text>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <HeaderControls />
            <Menu position="bottom-end">
              <Menu.Target>
                <UnstyledButton
                  aria-label={t('signedInAs', { name: session.user.displayName })}
                  data-testid="user-menu"
                >
                  <Text size="sm" fw={500} truncate="end" maw={120}>
                    {session.user.displayName || session.user.username}
                  </Text>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>{t('signedInAs', { name: session.user.username })}</Menu.Label>
                <Menu.Item component={Link} to={base === '/console' ? '/portal' : '/console'}>
                  {t(base === '/console' ? 'openPortal' : 'openConsole')}
                </Menu.Item>
                <Menu.Item
                  leftSection={<IconLogout size={16} />}
                  data-testid="sign-out"
                  onClick={() => {
                    void session.signOut().then(() => navigate(`${base}/login`));
                  }}
                >
                  {t('signOut')}
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label={t(base === '/console' ? 'appConsole' : 'appPortal')}>
        <AppShell.Section grow component={ScrollArea}>
          {permitted.map((page) => {
            const to = `${base}/${page.path}`;
            const Icon = page.icon;
            return (
              <NavLink
                key={page.path}
                component={Link}
                to={to}
                label={t(page.labelKey)}
                leftSection={<Icon size={18} stroke={1.6} />}
                active={location.pathname === to || location.pathname.startsWith(`${to}/`)}
                onClick={close}
                data-testid={`nav-${page.path}`}
              />
            );
          })}
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main id="main">
        <Suspense fallback={<PageSkeleton />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
