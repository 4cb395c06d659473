import {
  reportConcurrentResponseSchema,
  reportOverviewResponseSchema,
  reportTimelineResponseSchema,
  type ReportGranularity,
} from '@svc/contracts';
import { useApiQuery } from '../../api/hooks.js';
import type { WindowQuery } from './report-window.js';

export const REPORTS_PATH = '/api/auth/admin/reports';
export const RETENTION_PATH = '/api/auth/admin/activity-log/retention';

/*
 * The queries more than one part of the page reads (the cards and the CSV export, the timeline chart and
 * the CSV export) share one cache entry by asking with the same path and query.
 */

export function useOverview(reportWindow: WindowQuery | undefined) {
  return useApiQuery(`${REPORTS_PATH}/overview`, {
    schema: reportOverviewResponseSchema,
    query: reportWindow ?? {},
    enabled: reportWindow !== undefined,
    keepPrevious: true,
  });
}

export function useTimeline(reportWindow: WindowQuery | undefined, granularity: ReportGranularity) {
  return useApiQuery(`${REPORTS_PATH}/timeline`, {
    schema: reportTimelineResponseSchema,
    query: { ...reportWindow, granularity },
    enabled: reportWindow !== undefined,
    keepPrevious: true,
  });
}

export function useConcurrent(reportWindow: WindowQuery | undefined, granularity: ReportGranularity) {
  return useApiQuery(`${REPORTS_PATH}/concurrent`, {
    schema: reportConcurrentResponseSchema,
    query: { ...reportWindow, granularity },
    enabled: reportWindow !== undefined,
    keepPrevious: true,
  });
}
