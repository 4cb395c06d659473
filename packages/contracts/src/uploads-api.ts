import { z } from 'zod';

// --- Image uploads (POST /api/config/uploads/image) --------------------------------------------------------

/** Largest accepted image: 2 MB (2 × 2^20 bytes). Larger bodies answer 413 PAYLOAD_TOO_LARGE. */
export const IMAGE_UPLOAD_MAX_BYTES = 2 * 1024 * 1024;

/** An upload not saved as the logo is deleted this long after it arrived (task uploads.prune). */
export const IMAGE_UPLOAD_RETENTION_HOURS = 24;

/**
 * The image types accepted, as found by their first bytes (never taken from a Content-Type header).
 * SVG is refused: it is XML, can carry script, and cannot be told apart from other XML by magic bytes.
 */
export const IMAGE_CONTENT_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/x-icon',
] as const;
export const imageContentTypeSchema = z.enum(IMAGE_CONTENT_TYPES);
export type ImageContentType = z.infer<typeof imageContentTypeSchema>;

/** File name extension used in URLs of stored images. */
export const IMAGE_EXTENSIONS: Record<ImageContentType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/x-icon': 'ico',
};

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  bytes.length >= offset + signature.length &&
  signature.every((byte, index) => bytes[offset + index] === byte);
const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/**
 * The image type of a file from its magic bytes, or null when it is none of IMAGE_CONTENT_TYPES. Pure
 * (no Node or DOM API), so the web app can check a file before sending it; the server decides again.
 */
export function sniffImageType(bytes: Uint8Array): ImageContentType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  // ICO: reserved 0, type 1 (icon; 2 would be a cursor), at least one 16-byte directory entry.
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00]) && bytes.length >= 22) {
    const count = bytes[4]! | (bytes[5]! << 8);
    if (count > 0 && bytes.length >= 6 + 16 * count) return 'image/x-icon';
  }
  return null;
}

/** 201 answer of POST /api/config/uploads/image: the upload to name in PUT /api/auth/admin/branding/logo. */
export const imageUploadResponseSchema = z.object({
  id: z.uuid(),
  /** The sniffed type (what the image will be served as). */
  contentType: imageContentTypeSchema,
  size: z.number().int().min(1).max(IMAGE_UPLOAD_MAX_BYTES),
  /** SHA-256 of the bytes, lower-case hex. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string(),
  /** When the upload is deleted unless it was saved as the logo before. */
  expiresAt: z.string(),
});
export type ImageUploadResponse = z.infer<typeof imageUploadResponseSchema>;
