import {
  dashboardHealthResponseSchema,
  dashboardSessionsResponseSchema,
  dashboardSetupResponseSchema,
  storageUsageResponseSchema,
} from '@svc/contracts';
import { useApiQuery } from '../../api/hooks.js';
import { DASHBOARD_REFRESH_MS } from './dashboard-view.js';

/** The dashboard's sources (health, sessions, storage and the first-run checklist), each refreshed every 10 s (keeping the last answer on screen meanwhile). */
export function useDashboardData() {
  const options = { refetchInterval: DASHBOARD_REFRESH_MS, keepPrevious: true } as const;
  return {
    health: useApiQuery('/api/config/dashboard/health', {
      schema: dashboardHealthResponseSchema,
      ...options,
    }),
    sessions: useApiQuery('/api/auth/admin/dashboard/sessions', {
      schema: dashboardSessionsResponseSchema,
      ...options,
    }),
    storage: useApiQuery('/api/storage/dashboard/usage', { schema: storageUsageResponseSchema, ...options }),
    setup: useApiQuery('/api/config/dashboard/setup', { schema: dashboardSetupResponseSchema, ...options }),
  };
}

export type DashboardData = ReturnType<typeof useDashboardData>;
