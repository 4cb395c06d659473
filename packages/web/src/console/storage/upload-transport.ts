import { endpoints } from '@svc/contracts';
import { ApiError, authHeaders, errorFrom, type Credentials } from '../../api/client.js';
import type { UploadTransport } from './upload-runner.js';
import { callEndpoint, endpointPath } from '../../api/endpoint-client.js';

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
  const headers = nodeHeaders;
  return {
    create: (body, signal) =>
      callEndpoint(credentials, endpoints.storage.createUpload, {
        params: { mountId },
        body,
        headers,
        signal,
      }),
    status: (uploadId, signal) =>
      callEndpoint(credentials, endpoints.storage.getUpload, {
        params: { mountId, uploadId },
        headers,
        signal,
      }),
    // The chunk is raw bytes sent with XMLHttpRequest for its progress events: only the path comes from the
    // declaration.
    putChunk: (uploadId, index, body, onProgress, signal) =>
      putChunk(
        endpointPath(endpoints.storage.putUploadChunk, { mountId, uploadId, index }),
        body,
        { ...authHeaders(credentials), ...nodeHeaders },
        onProgress,
        signal,
      ),
    complete: (uploadId, signal) =>
      callEndpoint(credentials, endpoints.storage.completeUpload, {
        params: { mountId, uploadId },
        headers,
        signal,
      }),
    abort: async (uploadId) => {
      await callEndpoint(credentials, endpoints.storage.abortUpload, {
        params: { mountId, uploadId },
        headers,
      });
    },
  };
}
