import { useEffect, useRef, useState, type ReactNode } from 'react';
import { AspectRatio, Center, Image, Skeleton } from '@mantine/core';
import { authHeaders } from '../../api/client.js';
import { useSession } from '../../session/session.js';

type State = { status: 'idle' | 'loading' | 'failed' } | { status: 'loaded'; url: string };

/**
 * An image of the API, which needs the Authorization header a plain `<img src>` cannot send: fetched as
 * a blob with the session's headers into an object URL (revoked when the image goes away or changes).
 * Loads when it scrolls near the viewport; `fallback` shows when there is no image or it failed.
 */
export function AuthImage({
  src,
  alt,
  fallback,
  ratio = 2 / 3,
}: {
  /** API path of the image; null when the item has none. */
  src: string | null;
  alt: string;
  fallback: ReactNode;
  ratio?: number;
}) {
  const { credentials } = useSession();
  const holder = useRef<HTMLDivElement>(null);
  const [visible, setVisible] = useState(false);
  const [state, setState] = useState<State>({ status: 'idle' });

  useEffect(() => {
    const element = holder.current;
    if (!element || visible) return undefined;
    if (typeof IntersectionObserver === 'undefined') {
      setVisible(true);
      return undefined;
    }
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) setVisible(true);
      },
      { rootMargin: '200px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [visible]);

  useEffect(() => {
    if (!src || !visible) return undefined;
    const controller = new AbortController();
    let objectUrl: string | undefined;
    setState({ status: 'loading' });
    fetch(src, { headers: authHeaders(credentials), signal: controller.signal })
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const blob = await response.blob();
        objectUrl = URL.createObjectURL(blob);
        setState({ status: 'loaded', url: objectUrl });
      })
      .catch(() => {
        if (!controller.signal.aborted) setState({ status: 'failed' });
      });
    return () => {
      controller.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [src, visible, credentials]);

  return (
    <AspectRatio ratio={ratio} ref={holder}>
      {!src || state.status === 'failed' ? (
        <Center bg="var(--mantine-color-default-hover)" data-testid="poster-placeholder">
          {fallback}
        </Center>
      ) : state.status === 'loaded' ? (
        <Image src={state.url} alt={alt} fit="cover" data-testid="poster-image" />
      ) : (
        <Skeleton radius={0} />
      )}
    </AspectRatio>
  );
}
