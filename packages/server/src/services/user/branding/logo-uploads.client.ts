import { createHash } from 'node:crypto';
import { request } from 'undici';
import { IMAGE_UPLOAD_MAX_BYTES, sniffImageType, type ImageContentType } from '@svc/contracts';
import { SERVICE_TOKEN_HEADER } from '../../../platform/service-token.js';
import { AppError } from '../../../platform/http/errors.js';

/** An uploaded image as the config service keeps it. */
export interface UploadedImage {
  bytes: Buffer;
  contentType: ImageContentType;
  sha256: string;
}

/** Where uploaded images are kept until saved (the config service, which owns them). */
export interface UploadedImages {
  /** The upload; 404 UPLOAD_NOT_FOUND when it is unknown or expired, 503 when the config service is away. */
  fetch(uploadId: string): Promise<UploadedImage>;
  /** Deletes a saved upload (best effort: unsaved uploads are pruned after 24 hours anyway). */
  discard(uploadId: string): Promise<void>;
}

const TIMEOUT_MS = 10_000;

export const uploadNotFound = (uploadId: string) =>
  new AppError(
    404,
    'UPLOAD_NOT_FOUND',
    `upload ${uploadId} does not exist or has expired; upload the image again`,
    {
      uploadId,
    },
  );

const unavailable = (detail: string) =>
  new AppError(503, 'UPSTREAM_UNAVAILABLE', `the config service could not hand over the upload: ${detail}`);

/** GET|DELETE {configBaseUrl}/api/config/internal/uploads/:id with the service token. */
export class HttpUploadedImages implements UploadedImages {
  constructor(
    private readonly configBaseUrl: string,
    private readonly serviceToken: string,
  ) {}

  private url(uploadId: string): string {
    return `${this.configBaseUrl.replace(/\/+$/, '')}/api/config/internal/uploads/${encodeURIComponent(uploadId)}`;
  }

  async fetch(uploadId: string): Promise<UploadedImage> {
    let bytes: Buffer;
    let status: number;
    try {
      const response = await request(this.url(uploadId), {
        headers: { [SERVICE_TOKEN_HEADER]: this.serviceToken },
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      status = response.statusCode;
      bytes = Buffer.from(await response.body.arrayBuffer());
    } catch (error) {
      throw unavailable(error instanceof Error ? error.message : String(error));
    }
    if (status === 404) throw uploadNotFound(uploadId);
    if (status !== 200) throw unavailable(`status ${status}`);
    // The bytes are checked again here: what the user service serves must be an image it recognises.
    const contentType = sniffImageType(bytes);
    if (!contentType || bytes.length === 0 || bytes.length > IMAGE_UPLOAD_MAX_BYTES) {
      throw unavailable('the upload is not an image');
    }
    return { bytes, contentType, sha256: createHash('sha256').update(bytes).digest('hex') };
  }

  async discard(uploadId: string): Promise<void> {
    try {
      const response = await request(this.url(uploadId), {
        method: 'DELETE',
        headers: { [SERVICE_TOKEN_HEADER]: this.serviceToken },
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      await response.body.dump();
    } catch {
      // Pruned after 24 hours anyway.
    }
  }
}
