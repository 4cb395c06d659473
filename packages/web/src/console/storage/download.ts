import { authHeaders, errorFrom, type Credentials } from '../../api/client.js';
import { endpoints } from '@svc/contracts';
import { endpointUrl } from '../../api/endpoint-client.js';

/**
 * Downloads a file of a mount: the route needs the Authorization headers, so a plain link cannot be
 * used; the bytes are fetched, kept as a blob and saved under the file's name.
 */
export async function downloadMountFile(
  credentials: Credentials | undefined,
  headers: Record<string, string>,
  mountId: string,
  path: string,
  name: string,
): Promise<void> {
  const address = endpointUrl(endpoints.storage.download, { params: { mountId }, query: { path } });
  const response = await fetch(address, {
    headers: { ...authHeaders(credentials), ...headers },
  });
  if (!response.ok) throw await errorFrom(response);
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    link.rel = 'noopener';
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The browser has taken the blob once the click is handled.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
