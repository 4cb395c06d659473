import { endpoints, type ReportGranularity } from '@svc/contracts';
import { useEndpointQuery, type Invalidation } from '../../api/endpoint-hooks.js';
import type { WindowQuery } from './report-window.js';

/** Every cached answer of the report (the refresh button fetches them again); the retention setting is not one. */
export const REPORT_QUERIES: readonly Invalidation[] = [
  endpoints.user.reportOverview,
  endpoints.user.reportTimeline,
  endpoints.user.reportConcurrent,
  endpoints.user.reportHeatmap,
  endpoints.user.reportTopUsers,
  endpoints.user.reportTopMedia,
  endpoints.user.reportInactiveUsers,
  endpoints.user.reportDevices,
  endpoints.user.reportUser,
  endpoints.user.reportMediaWatchers,
  endpoints.user.reportDeviceUsers,
];

/*
 * The queries more than one part of the page reads (the cards and the CSV export, the timeline chart and
 * the CSV export) share one cache entry by asking with the same endpoint and query.
 */

export function useOverview(reportWindow: WindowQuery | undefined) {
  return useEndpointQuery(
    endpoints.user.reportOverview,
    { query: reportWindow ?? {} },
    { enabled: reportWindow !== undefined, keepPrevious: true },
  );
}

export function useTimeline(reportWindow: WindowQuery | undefined, granularity: ReportGranularity) {
  return useEndpointQuery(
    endpoints.user.reportTimeline,
    { query: { ...reportWindow, granularity } },
    { enabled: reportWindow !== undefined, keepPrevious: true },
  );
}

export function useConcurrent(reportWindow: WindowQuery | undefined, granularity: ReportGranularity) {
  return useEndpointQuery(
    endpoints.user.reportConcurrent,
    { query: { ...reportWindow, granularity } },
    { enabled: reportWindow !== undefined, keepPrevious: true },
  );
}
