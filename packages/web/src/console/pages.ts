import {
  IconApi,
  IconBooks,
  IconChartBar,
  IconDatabase,
  IconGauge,
  IconLicense,
  IconListDetails,
  IconServer,
  IconSettings,
  IconStack2,
  IconUsers,
} from '@tabler/icons-react';
import type { PageEntry } from '../shell/page-registry.js';

export const consolePages: PageEntry[] = [
  {
    path: 'dashboard',
    labelKey: 'nav.dashboard',
    permission: 'dashboard',
    icon: IconGauge,
    load: () => import('./dashboard/dashboard-page.js'),
  },
  {
    path: 'nodes',
    labelKey: 'nav.nodes',
    permission: 'node',
    icon: IconServer,
    load: () => import('./nodes/nodes-page.js'),
  },
  {
    path: 'cache',
    labelKey: 'nav.cache',
    permission: 'cache',
    icon: IconStack2,
    load: () => import('./cache/cache-page.js'),
  },
  {
    path: 'users',
    labelKey: 'nav.users',
    permission: 'user',
    icon: IconUsers,
    load: () => import('./users/users-page.js'),
  },
  {
    path: 'libraries',
    labelKey: 'nav.libraries',
    permission: 'library',
    icon: IconBooks,
    load: () => import('./libraries/libraries-page.js'),
  },
  {
    path: 'storage',
    labelKey: 'nav.storage',
    permission: 'storage',
    icon: IconDatabase,
    load: () => import('./storage/storage-page.js'),
  },
  {
    path: 'license',
    labelKey: 'nav.license',
    permission: 'license',
    icon: IconLicense,
    load: () => import('./license/license-page.js'),
  },
  {
    path: 'reports',
    labelKey: 'nav.reports',
    permission: ['reports', 'user'],
    icon: IconChartBar,
    load: () => import('./reports/reports-page.js'),
  },
  {
    path: 'audit',
    labelKey: 'nav.audit',
    permission: 'audit',
    icon: IconListDetails,
    load: () => import('./audit/audit-page.js'),
  },
  {
    path: 'settings',
    labelKey: 'nav.settings',
    permission: 'settings',
    icon: IconSettings,
    load: () => import('./settings/settings-page.js'),
  },
  {
    // Every console account may read the reference; each operation names the permission it needs.
    path: 'api-reference',
    labelKey: 'nav.apiReference',
    icon: IconApi,
    load: () => import('./api-reference/api-reference-page.js'),
  },
];
