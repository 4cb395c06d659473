import { z } from 'zod';

/** Service kinds that register their address with the config service. */
export const registeredServiceSchema = z.enum([
  'svc-frontend',
  'svc-gateway',
  'svc-user',
  'svc-media',
  'svc-config',
  'svc-control-storage',
  'svc-play-agent',
]);
export type RegisteredService = z.infer<typeof registeredServiceSchema>;

export const registerInstanceRequestSchema = z.object({
  service: registeredServiceSchema,
  instanceId: z.string().min(1).max(100),
  nodeId: z.string().max(64).nullable().default(null),
  baseUrl: z.url({ protocol: /^https?$/ }),
});
export type RegisterInstanceRequest = z.input<typeof registerInstanceRequestSchema>;

export const serviceInstanceSchema = z.object({
  service: registeredServiceSchema,
  instanceId: z.string(),
  nodeId: z.string().nullable(),
  baseUrl: z.string(),
  registeredAt: z.string(),
  lastSeenAt: z.string(),
});
export type ServiceInstance = z.infer<typeof serviceInstanceSchema>;

export const listInstancesResponseSchema = z.object({ instances: z.array(serviceInstanceSchema) });
export type ListInstancesResponse = z.infer<typeof listInstancesResponseSchema>;

/** GET /api/config/registry/instances?service=&nodeId= (service token): the live instances. */
export const listInstancesQuerySchema = z.object({
  service: registeredServiceSchema.optional(),
  nodeId: z.string().max(64).optional(),
});
