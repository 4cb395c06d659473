import { endpoints, type ImageType } from '@svc/contracts';
import { endpointPath } from '../../api/endpoint-client.js';

/** The portal's artwork route of an item (needs the Authorization header: load it with AuthImage). */
export function itemImagePath(id: string, type: ImageType): string {
  return endpointPath(endpoints.media.getMyItemImage, { id, type });
}
