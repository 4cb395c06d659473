import { IconChartPie, IconMovie, IconRoute } from '@tabler/icons-react';
import type { PageEntry } from '../shell/page-registry.js';

export const portalPages: PageEntry[] = [
  {
    path: 'libraries',
    labelKey: 'nav.myLibraries',
    icon: IconMovie,
    load: () => import('./libraries/my-libraries-page.js'),
  },
  {
    path: 'routes',
    labelKey: 'nav.myRoutes',
    icon: IconRoute,
    load: () => import('./routes/my-routes-page.js'),
  },
  {
    path: 'quota',
    labelKey: 'nav.myQuota',
    icon: IconChartPie,
    load: () => import('./quota/my-quota-page.js'),
  },
];
