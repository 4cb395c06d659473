import { endpoints } from '@svc/contracts';
import { DASHBOARD_REFRESH_MS } from './dashboard-view.js';
import { useEndpointQuery } from '../../api/endpoint-hooks.js';

/** The dashboard's sources (health, sessions, storage and the first-run checklist), each refreshed every 10 s (keeping the last answer on screen meanwhile). */
export function useDashboardData() {
  const options = { refetchInterval: DASHBOARD_REFRESH_MS, keepPrevious: true } as const;
  return {
    health: useEndpointQuery(endpoints.config.getDashboardHealth, {}, options),
    sessions: useEndpointQuery(endpoints.user.listDashboardSessions, {}, options),
    storage: useEndpointQuery(endpoints.storage.getUsage, {}, options),
    setup: useEndpointQuery(endpoints.config.getDashboardSetup, {}, options),
  };
}

export type DashboardData = ReturnType<typeof useDashboardData>;
