import sharp from 'sharp';
import { AppError } from '../../../platform/http/errors.js';

/** A resized artwork variant: each edge at most its bound (aspect kept, never enlarged). */
export interface ImageVariant {
  maxWidth?: number | undefined;
  maxHeight?: number | undefined;
  /** 1–100; JPEG and WebP only (PNG is lossless). */
  quality?: number | undefined;
}

/** Artwork files larger than this are not decoded for a variant. */
export const RESIZE_INPUT_LIMIT = 32 * 1024 * 1024;
const DEFAULT_QUALITY = 90;
const CONTENT_TYPES: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

export const wantsVariant = (variant: ImageVariant): boolean =>
  variant.maxWidth !== undefined || variant.maxHeight !== undefined || variant.quality !== undefined;

/**
 * Reads the image body (at most RESIZE_INPUT_LIMIT bytes) and returns the variant in the same format for
 * JPEG, PNG and WebP; other formats come out as JPEG. Resizing happens here, on the media service, because
 * a play-agent worker binary cannot carry sharp's native addon; the play-agent caches each variant.
 */
export async function resizeImage(
  body: AsyncIterable<Buffer>,
  variant: ImageVariant,
): Promise<{ bytes: Buffer; contentType: string }> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > RESIZE_INPUT_LIMIT) {
      throw new AppError(413, 'FILE_TOO_LARGE', 'the image is too large to resize');
    }
    chunks.push(chunk);
  }
  const input = Buffer.concat(chunks);
  const quality = variant.quality ?? DEFAULT_QUALITY;
  try {
    // An image already inside the bounds, with no quality asked, is answered as it is (no re-encoding).
    const source = await sharp(input).metadata();
    const known = source.format ? CONTENT_TYPES[source.format] : undefined;
    const fits =
      (variant.maxWidth === undefined || (source.width ?? Infinity) <= variant.maxWidth) &&
      (variant.maxHeight === undefined || (source.height ?? Infinity) <= variant.maxHeight);
    if (fits && variant.quality === undefined && known) return { bytes: input, contentType: known };
    let image = sharp(input, { failOn: 'error' }).rotate();
    if (variant.maxWidth !== undefined || variant.maxHeight !== undefined) {
      image = image.resize({
        width: variant.maxWidth,
        height: variant.maxHeight,
        fit: 'inside',
        withoutEnlargement: true,
      });
    }
    const { format } = await image.metadata();
    if (format === 'png') return { bytes: await image.png().toBuffer(), contentType: 'image/png' };
    if (format === 'webp')
      return { bytes: await image.webp({ quality }).toBuffer(), contentType: 'image/webp' };
    return { bytes: await image.jpeg({ quality, mozjpeg: true }).toBuffer(), contentType: 'image/jpeg' };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `the image could not be resized: ${(error as Error).message}`,
    );
  }
}
