import { createBrowserRouter, Navigate, Outlet } from 'react-router';
import { consolePages } from './console/pages.js';
import { portalPages } from './portal/pages.js';
import { SessionProvider, type AppKind } from './session/session.js';
import { AppLayout } from './shell/app-layout.js';
import { FirstPage, NotFoundPage, pageRoute } from './shell/page-route.js';
import type { PageEntry } from './shell/page-registry.js';
import { SetupPage } from './shell/setup-page.js';
import { SignInPage } from './shell/sign-in-page.js';

function appRoutes(app: AppKind, pages: PageEntry[]) {
  const base = `/${app}` as const;
  return {
    path: base,
    element: (
      <SessionProvider app={app}>
        <Outlet />
      </SessionProvider>
    ),
    children: [
      { path: 'login', element: <SignInPage app={app} /> },
      {
        element: <AppLayout pages={pages} base={base} />,
        children: [
          { index: true, element: <FirstPage pages={pages} base={base} /> },
          ...pages.map((page) => ({ path: `${page.path}/*`, element: pageRoute(page) })),
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  };
}

export const router = createBrowserRouter([
  { path: '/', element: <Navigate to="/console" replace /> },
  { path: '/setup', element: <SetupPage /> },
  appRoutes('console', consolePages),
  appRoutes('portal', portalPages),
  { path: '*', element: <NotFoundPage /> },
]);
