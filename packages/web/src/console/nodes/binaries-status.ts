import { binaryStatusSchema as binaryStatusResponseSchema } from '@svc/contracts';
import type { z } from 'zod';

/**
 * GET /api/config/binaries/status (permission `node`): the fields of the contracts' schema the card shows;
 * anything else in the answer is ignored.
 */
export const binaryStatusSchema = binaryStatusResponseSchema.pick({
  provided: true,
  file: true,
  platform: true,
  version: true,
  sizeBytes: true,
  sha256: true,
  modifiedAt: true,
  controlVersion: true,
  dockerImage: true,
  dockerImageFfmpeg: true,
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
