import { sql, type RawBuilder } from 'kysely';
import type { ReportGranularity } from '@svc/contracts';
import { bucketSql, type EventFilter } from './report-sql.js';

/**
 * Concurrency from the play spans (migration V009, docs/report.md "Play spans") for a window without a user
 * filter. A session plays from its first to its last event in the window; the concurrency at an instant counts
 * the sessions playing then (those starting or ending at it included), and a peak is the highest concurrency at
 * a session's start.
 *
 * A stored span's `level` is the concurrency at its first event over the whole log. Inside the window it differs
 * only because of the spans crossing the window's edges (found through the GiST index and recomputed from their
 * events in the window): a crossing span that has no event in the window counts in every level (k of them), and
 * the others differ only before the latest first event of those crossing `from` (lo) and after the earliest last
 * event of those crossing `to` (hi). So the levels of the spans starting in (lo, hi] minus k are exact, and the
 * starts in [from, lo] and (hi, to) — normally minutes — are swept exactly from their points. Should lo pass hi,
 * the whole window is swept.
 */
function spanCtes(filter: EventFilter): RawBuilder<unknown> {
  const variant = filter.mediaType ?? '*';
  const from = sql`${filter.from}::timestamptz`;
  const to = sql`${filter.to}::timestamptz`;
  const ofVariant = filter.mediaType ? sql`AND e.media_type = ${filter.mediaType}` : sql``;
  const everySpan = sql`tstzrange(every.first_at, every.last_at, '[]')`;
  return sql`
    crossing AS MATERIALIZED (
      SELECT p.first_at AS g_first, p.last_at AS g_last, w.first_in, w.last_in
      FROM activity_play_span every
      -- One primary-key probe per crossing session. As a join the planner misjudged the GiST index's few
      -- hundred rows and read every span ending after from (the whole window) through the last_at index.
      CROSS JOIN LATERAL (
        SELECT p.session_id, p.first_at, p.last_at FROM activity_play_span p
        WHERE p.variant = ${variant} AND p.session_id = every.session_id
          AND ((p.first_at < ${from} AND p.last_at >= ${from}) OR (p.first_at < ${to} AND p.last_at >= ${to}))
        OFFSET 0
      ) p
      CROSS JOIN LATERAL (
        SELECT min(e.occurred_at) AS first_in, max(e.occurred_at) AS last_in FROM activity_log e
        WHERE e.session_id = p.session_id AND e.occurred_at >= ${from} AND e.occurred_at < ${to} ${ofVariant}
      ) w
      WHERE every.variant = '*' AND (${everySpan} @> ${from} OR ${everySpan} @> ${to})
    ),
    edges AS MATERIALIZED (
      SELECT CASE WHEN lo > hi THEN ${to} ELSE lo END AS lo, CASE WHEN lo > hi THEN ${to} ELSE hi END AS hi, k
      FROM (
        SELECT greatest(${from}, max(first_in) FILTER (WHERE g_first < ${from})) AS lo,
               coalesce(min(last_in) FILTER (WHERE g_last >= ${to}), ${to}) AS hi,
               count(*) FILTER (WHERE first_in IS NULL) AS k
        FROM crossing
      ) found
    ),
    at_hi AS MATERIALIZED (
      SELECT p.first_at, p.last_at
      FROM edges, activity_play_span every
      JOIN activity_play_span p ON p.variant = ${variant} AND p.session_id = every.session_id
      WHERE every.variant = '*' AND ${everySpan} @> edges.hi
        AND p.first_at >= ${from} AND p.last_at < ${to} AND p.first_at <= edges.hi AND p.last_at >= edges.hi
    ),
    near AS (
      SELECT first_in AS first_at, last_in AS last_at FROM crossing WHERE first_in IS NOT NULL
      UNION ALL
      SELECT p.first_at, p.last_at FROM edges, activity_play_span p
      WHERE p.variant = ${variant} AND p.first_at >= ${from} AND p.first_at <= edges.lo AND p.last_at < ${to}
      UNION ALL
      SELECT p.first_at, p.last_at FROM edges, activity_play_span p
      WHERE p.variant = ${variant} AND p.first_at > edges.hi AND p.first_at < ${to} AND p.last_at < ${to}
      UNION ALL
      SELECT at_hi.first_at, at_hi.last_at FROM at_hi, edges WHERE at_hi.first_at > edges.lo
    ),
    edge_starts AS (
      SELECT t, run FROM (
        SELECT t, d, sum(d) OVER (ORDER BY t, d DESC RANGE UNBOUNDED PRECEDING) AS run
        FROM (
          SELECT near.first_at AS t, 1 AS d FROM near, edges WHERE near.first_at <= edges.lo
          UNION ALL
          SELECT near.last_at, -1 FROM near, edges WHERE near.last_at < edges.lo
        ) points
      ) head
      WHERE d = 1
      UNION ALL
      SELECT t, playing.n + run FROM (
        SELECT t, d, sum(d) OVER (ORDER BY t, d DESC RANGE UNBOUNDED PRECEDING) AS run
        FROM (
          SELECT near.first_at AS t, 1 AS d FROM near, edges WHERE near.first_at > edges.hi
          UNION ALL
          SELECT near.last_at, -1 FROM near, edges WHERE near.last_at >= edges.hi
        ) points
      ) tail,
      (
        SELECT (SELECT count(*) FROM at_hi)
             + (SELECT count(*) FROM crossing, edges WHERE first_in <= edges.hi AND last_in >= edges.hi) AS n
      ) playing
      WHERE d = 1
    )`;
}

/** The stored levels of the spans starting in (lo, hi], corrected by k. */
function interiorLevels(filter: EventFilter): RawBuilder<unknown> {
  return sql`p.variant = ${filter.mediaType ?? '*'} AND p.first_at > edges.lo AND p.first_at <= edges.hi
    AND p.first_at < ${filter.to}`;
}

/** One row: the window's peak concurrency (NULL without sessions). */
export function spanPeakSql(filter: EventFilter): RawBuilder<{ peak: number | null }> {
  return sql<{ peak: number | null }>`
    WITH ${spanCtes(filter)}
    SELECT greatest(
      (SELECT max(p.level) - max(edges.k) FROM edges, activity_play_span p WHERE ${interiorLevels(filter)}),
      (SELECT max(run) FROM edge_starts)
    ) AS peak`;
}

/** Per bucket: the sessions starting and ending in it and the peak at its starts (NULL without starts). */
export function spanConcurrencySql(
  filter: EventFilter,
  granularity: ReportGranularity,
): RawBuilder<{ bucket: Date; starts: number; ends: number; peak: number | null }> {
  const variant = filter.mediaType ?? '*';
  const bucket = (column: string) => bucketSql(sql.ref(column), granularity);
  return sql<{ bucket: Date; starts: number; ends: number; peak: number | null }>`
    WITH ${spanCtes(filter)}
    SELECT bucket, sum(starts)::bigint AS starts, sum(ends)::bigint AS ends, max(peak) AS peak
    FROM (
      SELECT ${bucket('p.first_at')} AS bucket, count(*) AS starts, 0 AS ends,
             max(p.level) FILTER (WHERE p.first_at > edges.lo AND p.first_at <= edges.hi) - max(edges.k) AS peak
      FROM edges, activity_play_span p
      WHERE p.variant = ${variant} AND p.first_at >= ${filter.from} AND p.first_at < ${filter.to}
      GROUP BY 1
      UNION ALL
      SELECT ${bucket('first_in')}, count(*), 0, NULL FROM crossing
      WHERE g_first < ${filter.from} AND first_in IS NOT NULL
      GROUP BY 1
      UNION ALL
      SELECT ${bucket('p.last_at')}, 0, count(*), NULL FROM activity_play_span p
      WHERE p.variant = ${variant} AND p.last_at >= ${filter.from} AND p.last_at < ${filter.to}
        AND p.first_at >= ${filter.from}
      GROUP BY 1
      UNION ALL
      SELECT ${bucket('last_in')}, 0, count(*), NULL FROM crossing WHERE last_in IS NOT NULL GROUP BY 1
      UNION ALL
      SELECT ${bucket('t')}, 0, 0, max(run) FROM edge_starts GROUP BY 1
    ) parts
    GROUP BY bucket`;
}
