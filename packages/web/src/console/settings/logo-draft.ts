import {
  IMAGE_UPLOAD_MAX_BYTES,
  sniffImageType,
  type ImageContentType,
  type LogoSource,
  type SetLogoRequest,
} from '@svc/contracts';

/** How the logo card is set: a new uploaded image, an address, or no logo at all. */
export type LogoMode = 'upload' | 'url' | 'none';

/** An image sent to POST /api/config/uploads/image that is not the logo yet (only the card's save makes it so). */
export interface PendingUpload {
  uploadId: string;
  fileName: string;
  /** Object URL of the chosen file, for the preview. */
  previewUrl: string;
}

export interface LogoDraft {
  mode: LogoMode;
  upload: PendingUpload | null;
  url: string;
}

/**
 * The card as saved: an address shows under "url"; an uploaded logo, and no logo yet, under "upload" (the
 * usual next step; choosing nothing there changes nothing).
 */
export function logoDraftFrom(saved: LogoSource | null): LogoDraft {
  if (saved?.kind === 'url') return { mode: 'url', upload: null, url: saved.url };
  return { mode: 'upload', upload: null, url: '' };
}

/**
 * The body of PUT /api/auth/admin/branding/logo for the draft, or undefined when the draft changes nothing
 * (the saved logo kept, or the upload tab chosen without a new image).
 */
export function logoRequestFrom(draft: LogoDraft, saved: LogoSource | null): SetLogoRequest | undefined {
  switch (draft.mode) {
    case 'none':
      return saved ? { logo: null } : undefined;
    case 'upload':
      return draft.upload ? { logo: { kind: 'upload', uploadId: draft.upload.uploadId } } : undefined;
    case 'url': {
      const url = draft.url.trim();
      return saved?.kind === 'url' && saved.url === url ? undefined : { logo: { kind: 'url', url } };
    }
  }
}

export type LogoFileCheck =
  { ok: true; contentType: ImageContentType } | { ok: false; problem: 'empty' | 'tooLarge' | 'notImage' };

/** Bytes of a file's start that `sniffImageType` needs (an ICO needs its directory too). */
export const LOGO_SNIFF_BYTES = 4096;

/**
 * Whether a chosen file may be sent as the logo, decided as the server does: by size (at most 2 MB) and by
 * its first bytes (PNG, JPEG, GIF, WebP or ICO), never by the file name or the browser's type.
 */
export function checkLogoFile(size: number, head: Uint8Array): LogoFileCheck {
  if (size === 0) return { ok: false, problem: 'empty' };
  if (size > IMAGE_UPLOAD_MAX_BYTES) return { ok: false, problem: 'tooLarge' };
  const contentType = sniffImageType(head);
  return contentType ? { ok: true, contentType } : { ok: false, problem: 'notImage' };
}
