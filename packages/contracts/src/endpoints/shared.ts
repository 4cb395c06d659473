import { z } from 'zod';
import { declareEndpoints } from '../endpoint.js';
import {
  cacheModeResponseSchema,
  healthResponseSchema,
  listTasksResponseSchema,
  runTaskResponseSchema,
} from '../health.js';
import { nodeLifecycleAcceptedSchema, nodeLifecycleRequestSchema } from '../nodes-api.js';

/** A scheduled task by name (internal port). */
const taskNameParamsSchema = z.object({ name: z.string().min(1).max(100) });

/**
 * Endpoints served by more than one component (docs/architecture.md "Endpoints"): the health document of
 * every listener, the worker nodes' lifecycle call, and the maintenance routes of the internal port.
 */
export const sharedEndpoints = declareEndpoints('shared', {
  getHealth: {
    method: 'GET',
    path: '/health',
    summary: 'Health of this listener (503 with the same document when a check is DOWN)',
    tag: 'Health',
    auth: { direct: 'health' },
    response: healthResponseSchema,
    errors: [],
  },
  runNodeLifecycle: {
    method: 'POST',
    path: '/api/node/lifecycle',
    summary: 'Make an installed worker node upgrade or uninstall itself (control plane only)',
    tag: 'Internal',
    auth: { service: true },
    body: nodeLifecycleRequestSchema,
    status: 202,
    response: nodeLifecycleAcceptedSchema,
    errors: ['NODE_LIFECYCLE_FAILED', 'NODE_NOT_INSTALLED'],
  },
  listTasks: {
    method: 'GET',
    path: '/internal/tasks',
    summary: 'Scheduled tasks of this process with their last run (internal port)',
    tag: 'Internal',
    auth: { direct: 'loopback' },
    response: listTasksResponseSchema,
    errors: [],
  },
  runTask: {
    method: 'POST',
    path: '/internal/tasks/{name}/run',
    summary: 'Run a scheduled task now (internal port)',
    tag: 'Internal',
    auth: { direct: 'loopback' },
    params: taskNameParamsSchema,
    response: runTaskResponseSchema,
    errors: ['NOT_FOUND'],
  },
  getCacheMode: {
    method: 'GET',
    path: '/internal/cache',
    summary: 'Cache mode of this process (internal port)',
    tag: 'Internal',
    auth: { direct: 'loopback' },
    response: cacheModeResponseSchema,
    errors: [],
  },
});
