/**
 * Why a `<video>` could not play: a media error alone does not say (Chromium reports a refused connection
 * as MEDIA_ERR_SRC_NOT_SUPPORTED, like an unknown codec), so after an error the player asks the stream
 * address itself with a one-byte request and reads the play-agent's answer (docs/web.md, "Web player").
 */
export type PlaybackFailure =
  /** Nothing answered at the playback address (refused, unknown host, blocked, timed out). */
  | 'unreachable'
  /** 401: the portal session's token is no longer accepted. */
  | 'signed-out'
  /** 403 WEB_PLAYBACK_DISABLED: the account may not play in the browser. */
  | 'web-playback-off'
  /** 403 QUOTA_EXHAUSTED: the account's traffic quota for this period is used up. */
  | 'quota'
  /** Another 401/403 (account disabled, this node or address not allowed). */
  | 'refused'
  /** 404: the item or its file is gone. */
  | 'not-found'
  /** The play-agent answered with another error (the storage node is offline, …). */
  | 'unavailable'
  /** The play-agent sends the file: the browser cannot decode it. */
  | 'format'
  /** The play-agent sends the file but the connection broke off during playback. */
  | 'interrupted';

/** What the one-byte request to the stream address found. */
export type StreamProbe =
  { reachable: false } | { reachable: true; status: number; code: string | null; message: string | null };

/** HTMLMediaElement's MediaError codes (the numbers are the standard's). */
export const MEDIA_ERR = { ABORTED: 1, NETWORK: 2, DECODE: 3, SRC_NOT_SUPPORTED: 4 } as const;

const PROBE_TIMEOUT_MS = 10_000;

async function errorOf(response: Response): Promise<{ code: string | null; message: string | null }> {
  try {
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    return {
      code: typeof body.error?.code === 'string' ? body.error.code : null,
      message: typeof body.error?.message === 'string' ? body.error.message : null,
    };
  } catch {
    return { code: null, message: null };
  }
}

/**
 * Asks for the first byte of the stream (a GET, so an error answer carries its JSON body: HEAD would
 * hide the code that tells a used-up quota from a refused node). Fetch rejects only when no HTTP answer
 * came: that is the address being unreachable.
 */
export async function probeStream(
  url: string,
  fetchImpl: typeof fetch = fetch,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<StreamProbe> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers: { Range: 'bytes=0-0' },
      cache: 'no-store',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    return { reachable: false };
  }
  if (response.ok) {
    await response.body?.cancel().catch(() => undefined);
    return { reachable: true, status: response.status, code: null, message: null };
  }
  return { reachable: true, status: response.status, ...(await errorOf(response)) };
}

/** The cause to tell the user, from the element's MediaError code (null if none) and the probe. */
export function classifyPlaybackFailure(mediaError: number | null, probe: StreamProbe): PlaybackFailure {
  if (!probe.reachable) return 'unreachable';
  const { status, code } = probe;
  if (status >= 200 && status < 300) return mediaError === MEDIA_ERR.NETWORK ? 'interrupted' : 'format';
  if (code === 'QUOTA_EXHAUSTED') return 'quota';
  if (code === 'WEB_PLAYBACK_DISABLED') return 'web-playback-off';
  if (status === 401 && code !== 'ACCOUNT_DISABLED') return 'signed-out';
  if (status === 401 || status === 403) return 'refused';
  if (status === 404) return 'not-found';
  return 'unavailable';
}
