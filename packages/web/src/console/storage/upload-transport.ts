import { uploadCompleteResponseSchema, uploadSchema, type StorageEntry, type Upload } from '@svc/contracts';
import { ApiError, apiRequest, authHeaders, errorFrom, type Credentials } from '../../api/client.js';
import type { UploadTransport } from './upload-runner.js';

/** PUT of one chunk with XMLHttpRequest, which (unlike fetch) reports the bytes sent so far. */
function putChunk(
  url: string,
  body: Blob,
  headers: Record<string, string>,
  onProgress: (loaded: number) => void,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError'));
      return;
    }
    const request = new XMLHttpRequest();
    const onAbort = () => request.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const done = () => signal.removeEventListener('abort', onAbort);
    request.open('PUT', url);
    for (const [name, value] of Object.entries(headers)) request.setRequestHeader(name, value);
    request.setRequestHeader('content-type', 'application/octet-stream');
    request.upload.onprogress = (event) => onProgress(event.loaded);
    request.onload = () => {
      done();
      if (request.status >= 200 && request.status < 300) {
        resolve();
        return;
      }
      void errorFrom(new Response(request.responseText, { status: request.status })).then(reject);
    };
    request.onerror = () => {
      done();
      reject(new ApiError(0, 'NETWORK_ERROR', 'the chunk could not be sent'));
    };
    request.onabort = () => {
      done();
      reject(new DOMException('Aborted', 'AbortError'));
    };
    request.send(body);
  });
}

/** The upload routes of one mount on the current storage node. */
export function createUploadTransport(
  credentials: Credentials | undefined,
  nodeHeaders: Record<string, string>,
  mountId: string,
): UploadTransport {
  const base = `/api/storage/mounts/${mountId}/uploads`;
  const request = <T>(path: string, options: Parameters<typeof apiRequest<T>>[2]) =>
    apiRequest<T>(credentials, path, { ...options, headers: { ...nodeHeaders, ...options?.headers } });
  return {
    create: (body, signal) => request<Upload>(base, { method: 'POST', body, schema: uploadSchema, signal }),
    status: (uploadId, signal) => request<Upload>(`${base}/${uploadId}`, { schema: uploadSchema, signal }),
    putChunk: (uploadId, index, body, onProgress, signal) =>
      putChunk(
        `${base}/${uploadId}/chunks/${index}`,
        body,
        { ...authHeaders(credentials), ...nodeHeaders },
        onProgress,
        signal,
      ),
    complete: (uploadId, signal) =>
      request<{ upload: Upload; entry: StorageEntry }>(`${base}/${uploadId}/complete`, {
        method: 'POST',
        schema: uploadCompleteResponseSchema,
        signal,
      }),
    abort: (uploadId) => request<void>(`${base}/${uploadId}`, { method: 'DELETE' }),
  };
}
