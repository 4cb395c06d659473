import { z } from 'zod';

/**
 * DRIVE_B CDN address preference of a play-agent node (docs/drives.md, "CDN address preference"): which
 * address of the CDN host name the node's new download connections use, the pool of good addresses, and the
 * addresses an administrator named by hand.
 */

/** At most this many qualifying addresses in a host's preferred pool (spec, Limits). */
export const CDN_POOL_SIZE = 5;
/** The optimization task's period (`gdrive-cdn.optimize`). */
export const CDN_OPTIMIZE_INTERVAL_SECONDS = 60;
/** Manual lists are short: they name addresses, not ranges. */
export const CDN_MANUAL_IPS_MAX = 16;

/** An IPv4 or IPv6 address literal. */
export const cdnIpSchema = z.union([z.ipv4(), z.ipv6()], { error: 'an IPv4 or IPv6 address' });

/** A CDN host name with an optional port, as in the DRIVE_B mount's `cdnHost`. */
export const cdnHostSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z0-9.-]+(?::[0-9]{1,5})?$/, 'a host name, optionally with :port')
  .transform((value) => value.toLowerCase());

/** One measurement of one address: time to the answer's headers and the bytes per second of a live read. */
export const cdnMeasurementSchema = z.object({
  ip: z.string(),
  /** Where the address came from: a DNS-over-HTTPS answer, a manual list, or the current pool. */
  source: z.enum(['dns', 'manual', 'pool']),
  ok: z.boolean(),
  /** Milliseconds from the request to the answer's headers (connection and TLS included). */
  latencyMs: z.number().nonnegative().nullable(),
  /** Bytes per second of the sample read; null when no sample link is known yet (latency only). */
  throughputBytesPerSecond: z.number().nonnegative().nullable(),
  /** Bytes read during the measurement. */
  bytes: z.number().int().nonnegative(),
  /** Why the address failed, in one line (never the link). */
  error: z.string().nullable(),
  measuredAt: z.string(),
});
export type CdnMeasurement = z.infer<typeof cdnMeasurementSchema>;

export const cdnHostStatusSchema = z.object({
  /** The CDN host name (and port) as it appears in the links. */
  host: z.string(),
  /** The address new connections go to; null until one qualified (the system resolver is used then). */
  primaryIp: z.string().nullable(),
  /** Qualifying addresses, best first, at most CDN_POOL_SIZE. */
  preferredPool: z.array(cdnMeasurementSchema).max(CDN_POOL_SIZE),
  /** Addresses preferred by hand: the first that qualifies is the primary. */
  manualPreferredIps: z.array(z.string()),
  /** Addresses measured besides those DNS answers. */
  manualCandidateIps: z.array(z.string()),
  /** Every address of the last optimization, in the order measured. */
  lastMeasurements: z.array(cdnMeasurementSchema),
  /** A file link of this host was seen, so measurements read real bytes (throughput). */
  sampleKnown: z.boolean(),
  lastOptimizedAt: z.string().nullable(),
  /** Why the last optimization failed as a whole (DNS, no address), else null. */
  lastError: z.string().nullable(),
  /** Times the primary address changed since the node started. */
  switches: z.number().int().nonnegative(),
});
export type CdnHostStatus = z.infer<typeof cdnHostStatusSchema>;

export const cdnStatusSchema = z.object({
  nodeId: z.string(),
  /** The node's cache configuration switch `cdn.enabled`. */
  enabled: z.boolean(),
  /** DNS-over-HTTPS resolver URLs (RFC 8484) the node asks. */
  resolvers: z.array(z.string()),
  intervalSeconds: z.number().int().positive(),
  hosts: z.array(cdnHostStatusSchema),
});
export type CdnStatus = z.infer<typeof cdnStatusSchema>;

/** POST …/cdn/probe: resolve and measure now; `host` adds a host the node has not streamed from yet. */
export const cdnProbeRequestSchema = z.strictObject({ host: cdnHostSchema.optional() });
export type CdnProbeRequest = z.infer<typeof cdnProbeRequestSchema>;

/** POST …/cdn/measure-ip: one address of one host (the only known host when `host` is absent). */
export const cdnMeasureIpRequestSchema = z.strictObject({
  ip: cdnIpSchema,
  host: cdnHostSchema.optional(),
});
export type CdnMeasureIpRequest = z.infer<typeof cdnMeasureIpRequestSchema>;

const ipList = z
  .array(cdnIpSchema)
  .max(CDN_MANUAL_IPS_MAX)
  .refine((list) => new Set(list).size === list.length, 'an address appears twice');

/** POST …/cdn/manual: replaces a host's manual lists (empty lists clear them). */
export const cdnManualRequestSchema = z.strictObject({
  host: cdnHostSchema,
  preferredIps: ipList,
  candidateIps: ipList,
});
export type CdnManualRequest = z.infer<typeof cdnManualRequestSchema>;
