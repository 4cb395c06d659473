import { useEffect, useRef, useState, type ReactNode } from 'react';
import { AspectRatio, Center, Image, Skeleton } from '@mantine/core';
import { authHeaders } from '../../api/client.js';
import { useSession } from '../../session/session.js';

type Outcome = { status: 'failed' } | { status: 'loaded'; url: string };

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
  // Without IntersectionObserver (old browsers, jsdom) every image loads at once.
  const [visible, setVisible] = useState(() => typeof IntersectionObserver === 'undefined');
  // The outcome of the fetch for one src and session: another src or sign-in shows loading until its own.
  const [result, setResult] = useState<{ src: string; credentials: unknown; outcome: Outcome } | null>(null);
  const outcome = result?.src === src && result.credentials === credentials ? result.outcome : undefined;

  useEffect(() => {
    const element = holder.current;
    if (!element || visible) return undefined;
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
    fetch(src, { headers: authHeaders(credentials), signal: controller.signal })
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const blob = await response.blob();
        objectUrl = URL.createObjectURL(blob);
        setResult({ src, credentials, outcome: { status: 'loaded', url: objectUrl } });
      })
      .catch(() => {
        if (!controller.signal.aborted) setResult({ src, credentials, outcome: { status: 'failed' } });
      });
    return () => {
      controller.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [src, visible, credentials]);

  return (
    <AspectRatio ratio={ratio} ref={holder}>
      {!src || outcome?.status === 'failed' ? (
        <Center bg="var(--mantine-color-default-hover)" data-testid="poster-placeholder">
          {fallback}
        </Center>
      ) : outcome?.status === 'loaded' ? (
        <Image src={outcome.url} alt={alt} fit="cover" data-testid="poster-image" />
      ) : (
        <Skeleton radius={0} />
      )}
    </AspectRatio>
  );
}
