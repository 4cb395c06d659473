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
