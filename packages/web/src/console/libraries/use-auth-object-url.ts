import { useEffect, useState } from 'react';
import { authHeaders, type Credentials } from '../../api/client.js';

export type AuthImageState = { status: 'loading' } | { status: 'ready'; url: string } | { status: 'missing' };

/**
 * The service's own image routes (a path on this origin) need the Authorization headers; other addresses (a
 * provider's poster, `https://…` or `//host/…`) do not.
 */
export function needsAuthorisedFetch(url: string): boolean {
  return /^\/(?!\/)/.test(url);
}

/**
 * An image address an <img> can show: for the service's routes the bytes are fetched with the console's
 * headers and shown through an object URL (revoked when the image changes or the component goes away);
 * other addresses are used as they are. No address, or a 404, is "missing".
 */
export function useAuthObjectUrl(
  src: string | null | undefined,
  credentials: Credentials | undefined,
): AuthImageState {
  const [state, setState] = useState<{ src: string | null | undefined; value: AuthImageState }>({
    src: undefined,
    value: { status: 'missing' },
  });

  useEffect(() => {
    if (!src || !needsAuthorisedFetch(src)) return;
    const controller = new AbortController();
    let objectUrl: string | undefined;
    void fetch(src, { headers: authHeaders(credentials), signal: controller.signal })
      .then(async (response) => {
        if (!response.ok) throw new Error(`image answered ${response.status}`);
        const blob = await response.blob();
        if (controller.signal.aborted) return;
        objectUrl = URL.createObjectURL(blob);
        setState({ src, value: { status: 'ready', url: objectUrl } });
      })
      .catch(() => {
        if (!controller.signal.aborted) setState({ src, value: { status: 'missing' } });
      });
    return () => {
      controller.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [src, credentials]);

  if (!src) return { status: 'missing' };
  if (!needsAuthorisedFetch(src)) return { status: 'ready', url: src };
  return state.src === src ? state.value : { status: 'loading' };
}
