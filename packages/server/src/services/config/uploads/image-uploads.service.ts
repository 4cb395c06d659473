import { createHash, randomUUID } from 'node:crypto';
import {
  IMAGE_CONTENT_TYPES,
  IMAGE_UPLOAD_MAX_BYTES,
  IMAGE_UPLOAD_RETENTION_HOURS,
  sniffImageType,
  type ImageUploadResponse,
} from '@svc/contracts';
import type { Clock } from '../../../platform/cache/index.js';
import { AppError, notFound } from '../../../platform/http/errors.js';
import type { ImageUploadRow, ImageUploadsRepository } from './image-uploads.repository.js';

/** An upload is deleted this long after it arrived unless saved (as the logo) before. */
export const IMAGE_UPLOAD_RETENTION_MS = IMAGE_UPLOAD_RETENTION_HOURS * 60 * 60 * 1000;
/** At most this many unsaved uploads are kept; a new one pushes out the oldest (at most 40 MB in all). */
export const IMAGE_UPLOADS_KEPT = 20;

export const payloadTooLarge = () =>
  new AppError(413, 'PAYLOAD_TOO_LARGE', `an image may be at most ${IMAGE_UPLOAD_MAX_BYTES} bytes (2 MB)`, {
    limitBytes: IMAGE_UPLOAD_MAX_BYTES,
  });

/** The first non-blank byte is '<': SVG, HTML or other XML, refused with a clearer message. */
function looksLikeMarkup(bytes: Buffer): boolean {
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (start < bytes.length && [0x09, 0x0a, 0x0d, 0x20].includes(bytes[start]!)) start += 1;
  return bytes[start] === 0x3c;
}

/**
 * Images uploaded on the system configuration page. The type comes from the bytes alone (PNG, JPEG, GIF,
 * WebP, ICO); SVG and everything else is refused. An upload changes nothing by itself: it waits until
 * PUT /api/auth/admin/branding/logo copies it into the branding, and is deleted after 24 hours otherwise.
 */
export class ImageUploadsService {
  constructor(
    private readonly uploads: ImageUploadsRepository,
    private readonly clock: Clock,
  ) {}

  async store(bytes: Buffer, uploadedBy: string | null): Promise<ImageUploadResponse> {
    if (bytes.length === 0) throw new AppError(400, 'VALIDATION_FAILED', 'the image is empty');
    if (bytes.length > IMAGE_UPLOAD_MAX_BYTES) throw payloadTooLarge();
    const contentType = sniffImageType(bytes);
    if (!contentType) {
      throw new AppError(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        looksLikeMarkup(bytes)
          ? 'SVG and other markup are not accepted as images (they can carry script); use PNG, JPEG, GIF, WebP or ICO'
          : 'the file is not a PNG, JPEG, GIF, WebP or ICO image',
        { allowed: IMAGE_CONTENT_TYPES },
      );
    }
    const now = new Date(this.clock.now());
    const row: ImageUploadRow = {
      id: randomUUID(),
      content_type: contentType,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      data: bytes,
      uploaded_by: uploadedBy,
      created_at: now,
    };
    await this.uploads.insert(row);
    await this.uploads.keepNewest(IMAGE_UPLOADS_KEPT);
    return {
      id: row.id,
      contentType,
      size: row.size,
      sha256: row.sha256,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + IMAGE_UPLOAD_RETENTION_MS).toISOString(),
    };
  }

  /** An upload that has not expired (an expired one not yet pruned counts as gone). */
  async get(id: string): Promise<ImageUploadRow> {
    const row = await this.uploads.find(id);
    if (!row || row.created_at.getTime() + IMAGE_UPLOAD_RETENTION_MS <= this.clock.now()) {
      throw notFound('upload');
    }
    return row;
  }

  async delete(id: string): Promise<void> {
    await this.uploads.delete(id);
  }

  /** Task uploads.prune: deletes uploads that reached the retention (24 hours). */
  async prune(): Promise<number> {
    return this.uploads.deleteArrivedBy(new Date(this.clock.now() - IMAGE_UPLOAD_RETENTION_MS));
  }
}
