import { Agent, request, type Dispatcher } from 'undici';
import { AppError } from '../../../platform/http/errors.js';
import { literalHostAllowed, publicOnlyLookup } from '../providers/network-guard.js';
import { storageErrors } from '../storage-errors.js';

export const tokenInvalid = (drive: string) =>
  new AppError(502, 'DRIVE_TOKEN_INVALID', `${drive} refused the account's token; renew it in the mount`);

/** An undici agent for a drive's API: public addresses only unless the mount allows private ones. */
export function driveAgent(allowPrivateNetwork: boolean): Agent {
  return new Agent({
    connections: 16,
    keepAliveTimeout: 30_000,
    ...(allowPrivateNetwork ? {} : { connect: { lookup: publicOnlyLookup } }),
  });
}

/** Refuses an IP-literal host in the private ranges when the mount does not allow them. */
export function checkHost(url: string, allowPrivateNetwork: boolean, drive: string): void {
  if (!allowPrivateNetwork && !literalHostAllowed(new URL(url).hostname)) {
    throw storageErrors.unavailable(
      `the ${drive} address is private or local and allowPrivateNetwork is off`,
    );
  }
}

/** One JSON call to a drive's API; the answer's status and parsed body (null when not JSON). */
export async function callJson(
  dispatcher: Dispatcher,
  url: string,
  options: {
    method: 'GET' | 'POST';
    headers: Record<string, string>;
    body?: unknown;
    timeoutMs: number;
    signal?: AbortSignal;
    drive: string;
  },
): Promise<{ status: number; body: unknown }> {
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: options.method,
      dispatcher,
      headers: {
        accept: 'application/json',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw storageErrors.unavailable(`${options.drive} did not answer: ${(error as Error).message}`);
  }
  const text = await response.body.text().catch(() => '');
  try {
    return { status: response.statusCode, body: JSON.parse(text) as unknown };
  } catch {
    return { status: response.statusCode, body: null };
  }
}

/** Drive paths relative to the mount root joined under the drive folder `root` ('/x' + 'a/b' = '/x/a/b'). */
export function underRoot(root: string, path: string): string {
  const base = root.endsWith('/') ? root.slice(0, -1) : root;
  return path === '' ? base || '/' : `${base}/${path}`;
}
