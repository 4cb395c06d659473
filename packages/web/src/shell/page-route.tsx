import { lazy, type ComponentType, type ReactNode } from 'react';
import { Alert, Button, Center, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, Navigate } from 'react-router';
import { useSession } from '../session/session.js';
import { useDocumentBranding } from './branding.js';
import { usePermittedPages } from './app-layout.js';
import { mayOpen, type PageEntry } from './page-registry.js';
import { TimeZoneNote } from './time-zone-note.js';

/**
 * A registered page: tab title, permission check, and its code loaded on first visit. The route table makes
 * one `pageRoute` element per page once, so the page's lazy component is created outside of render.
 */
export function pageRoute(page: PageEntry): ReactNode {
  return <PageRoute page={page} Page={lazy(page.load)} />;
}

function PageRoute({ page, Page }: { page: PageEntry; Page: ComponentType }) {
  const { t } = useTranslation();
  const session = useSession();
  useDocumentBranding(t(page.labelKey));
  if (!mayOpen(page, (permission) => session.can(permission))) {
    return (
      <Alert color="yellow" data-testid="not-allowed">
        {t('notAllowed')}
      </Alert>
    );
  }
  return <Page />;
}

/** /console and /portal open the first page the account may see. */
export function FirstPage({ pages, base }: { pages: PageEntry[]; base: string }) {
  const { t } = useTranslation();
  const permitted = usePermittedPages(pages);
  const first = permitted[0];
  if (first) return <Navigate to={`${base}/${first.path}`} replace />;
  return (
    <Alert color="yellow" data-testid="not-allowed">
      {t('notAllowed')}
    </Alert>
  );
}

export function NotFoundPage() {
  const { t } = useTranslation();
  useDocumentBranding(t('notFoundTitle'));
  return (
    <Center mih="60vh" p="md">
      <Stack align="center" gap="sm">
        <Title order={1} size="h2">
          {t('notFoundTitle')}
        </Title>
        <Text c="dimmed">{t('notFoundBody')}</Text>
        <Group>
          <Button component={Link} to="/">
            {t('backHome')}
          </Button>
        </Group>
      </Stack>
    </Center>
  );
}

/**
 * Title row of a page with its actions on the right (wraps on a phone). Under the title it names the zone
 * the page's times are shown in; a page that names it next to its own time fields passes `timeZoneNote={false}`.
 */
export function PageHeader({
  title,
  actions,
  timeZoneNote = true,
}: {
  title: string;
  actions?: ReactNode;
  timeZoneNote?: boolean;
}) {
  return (
    <Group justify="space-between" mb="md" gap="sm">
      <Stack gap={0}>
        <Title order={1} size="h2">
          {title}
        </Title>
        {timeZoneNote && <TimeZoneNote />}
      </Stack>
      {actions && <Group gap="xs">{actions}</Group>}
    </Group>
  );
}
