import {
  REPORT_MAX_SPAN_DAYS,
  reportWindowQuerySchema,
  type ActivityMediaType,
  type ReportGranularity,
  type ReportPreset,
} from '@svc/contracts';
import { DAY_MS, fromShanghaiInput, shanghaiIso, toShanghaiInput } from './shanghai-time.js';

/** What the filter bar holds. Custom bounds are the date-time inputs' values (Shanghai wall-clock time). */
export interface ReportFilters {
  preset: ReportPreset;
  customFrom: string;
  customTo: string;
  mediaType: ActivityMediaType | null;
  userId: string | null;
  granularity: ReportGranularity;
}

export const DEFAULT_FILTERS: ReportFilters = {
  preset: 'last7d',
  customFrom: '',
  customTo: '',
  mediaType: null,
  userId: null,
  granularity: 'day',
};

/** The window and filter parameters every report endpoint takes. */
export interface WindowQuery {
  preset: ReportPreset;
  from?: string;
  to?: string;
  mediaType?: ActivityMediaType;
  userId?: string;
  [key: string]: string | undefined;
}

/** Why a custom window cannot be asked for (shown translated next to the inputs). */
export type WindowProblem = 'fromRequired' | 'toRequired' | 'order' | 'span' | 'invalid';

export type WindowQueryResult = { ok: true; query: WindowQuery } | { ok: false; problem: WindowProblem };

/**
 * The query of the filters, checked with the same zod schema the server uses (custom bounds present,
 * in order and at most REPORT_MAX_SPAN_DAYS apart). The presets themselves are resolved by the server.
 */
export function windowQuery(filters: ReportFilters): WindowQueryResult {
  const query: WindowQuery = { preset: filters.preset };
  if (filters.preset === 'custom') {
    const from = fromShanghaiInput(filters.customFrom);
    const to = fromShanghaiInput(filters.customTo);
    if (!from) return { ok: false, problem: 'fromRequired' };
    if (!to) return { ok: false, problem: 'toRequired' };
    if (to.getTime() <= from.getTime()) return { ok: false, problem: 'order' };
    if (to.getTime() - from.getTime() > REPORT_MAX_SPAN_DAYS * DAY_MS) return { ok: false, problem: 'span' };
    query.from = shanghaiIso(from);
    query.to = shanghaiIso(to);
  }
  if (filters.mediaType) query.mediaType = filters.mediaType;
  if (filters.userId) query.userId = filters.userId;
  return reportWindowQuerySchema.safeParse(query).success
    ? { ok: true, query }
    : { ok: false, problem: 'invalid' };
}

/** Input values of a resolved window, to start a custom range from the one shown. */
export function customInputsOf(range: { from: string; to: string }): {
  customFrom: string;
  customTo: string;
} {
  return {
    customFrom: toShanghaiInput(new Date(range.from)),
    customTo: toShanghaiInput(new Date(range.to)),
  };
}
