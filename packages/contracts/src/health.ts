import { z } from 'zod';

export const componentNames = [
  'frontend',
  'gateway',
  'user',
  'media',
  'config',
  'internal',
  'storage',
  'play-agent',
  'cluster',
] as const;
export const componentNameSchema = z.enum(componentNames);
export type ComponentName = z.infer<typeof componentNameSchema>;

export const healthResponseSchema = z.object({
  status: z.enum(['UP', 'DOWN']),
  component: componentNameSchema,
  version: z.string(),
  uptimeSeconds: z.number(),
  checks: z.record(z.string(), z.enum(['UP', 'DOWN', 'DEGRADED'])).optional(),
});
export type HealthResponse = z.infer<typeof healthResponseSchema>;

// Maintenance views of the internal port (loopback only, service token): scheduled tasks and the cache.

/** One scheduled task of this process, as GET /internal/tasks lists it. */
export const taskStatusSchema = z.object({
  /** The component whose scheduler runs it. */
  owner: z.string(),
  name: z.string(),
  /** Times run() was called in this process. */
  runs: z.number().int(),
  /** Attempts that failed: run() threw/rejected, or the lock function itself failed. */
  failures: z.number().int(),
  /** Attempts not run: the previous run was still going here, or another instance held the lock. */
  skipped: z.number().int(),
  running: z.boolean(),
  lastStartedAt: z.string().nullable(),
  lastFinishedAt: z.string().nullable(),
  lastError: z.string().nullable(),
  /** Next scheduled attempt, null while the scheduler is not started. */
  nextRunAt: z.string().nullable(),
});
export const listTasksResponseSchema = z.object({ tasks: z.array(taskStatusSchema) });

/** POST /internal/tasks/{name}/run: `skipped` when the task was running here or locked elsewhere. */
export const runTaskResponseSchema = z.object({ result: z.enum(['ran', 'skipped']) });

/** GET /internal/cache: `degraded` while Redis is configured but unreachable. */
export const cacheModeResponseSchema = z.object({ mode: z.enum(['memory', 'redis', 'degraded']) });
