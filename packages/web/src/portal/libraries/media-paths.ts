import type { ImageType } from '@svc/contracts';

/** The portal's artwork route of an item (needs the Authorization header: load it with AuthImage). */
export function itemImagePath(id: string, type: ImageType): string {
  return `/api/media/me/items/${encodeURIComponent(id)}/images/${type}`;
}

export function itemPath(id: string): string {
  return `/api/media/me/items/${encodeURIComponent(id)}`;
}
