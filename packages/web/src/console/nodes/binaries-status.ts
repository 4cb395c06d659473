import { z } from 'zod';

/**
 * GET /api/config/binaries/status (permission `node`). The server's schema lives in
 * packages/server/src/services/config/binaries.routes.ts, not in the contracts; this copy reads only
 * what the card shows and ignores anything else.
 */
export const binaryStatusSchema = z.object({
  provided: z.boolean(),
  file: z.string(),
  platform: z.string(),
  version: z.string().nullable(),
  sizeBytes: z.number().nullable(),
  sha256: z.string().nullable(),
  modifiedAt: z.string().nullable(),
  controlVersion: z.string(),
  dockerImage: z.string(),
  dockerImageFfmpeg: z.string(),
});
export type BinaryStatus = z.infer<typeof binaryStatusSchema>;

/** The binary's version differs from the control plane's: nodes installed from it run another version. */
export function versionMismatch(
  status: Pick<BinaryStatus, 'provided' | 'version' | 'controlVersion'>,
): boolean {
  return status.provided && status.version !== null && status.version !== status.controlVersion;
}

/** A SHA-256 shortened for a card (first and last eight hex digits). */
export function shortDigest(sha256: string | null): string | null {
  if (!sha256) return null;
  return sha256.length <= 20 ? sha256 : `${sha256.slice(0, 8)}…${sha256.slice(-8)}`;
}
