import { useState } from 'react';
import { AspectRatio, Center, Image, Skeleton } from '@mantine/core';
import { IconPhotoOff } from '@tabler/icons-react';
import { useSession } from '../../session/session.js';
import { useAuthObjectUrl } from './use-auth-object-url.js';

/**
 * An image of the media service (poster, fan art) shown at a fixed aspect ratio: fetched with the
 * console's headers (useAuthObjectUrl), with a skeleton while it loads and a neutral placeholder when
 * there is none.
 */
export function AuthImage({
  src,
  alt,
  ratio = 2 / 3,
  radius = 'sm',
}: {
  src: string | null | undefined;
  alt: string;
  ratio?: number;
  radius?: 'xs' | 'sm' | 'md';
}) {
  const { credentials } = useSession();
  const state = useAuthObjectUrl(src, credentials);
  const [brokenUrl, setBrokenUrl] = useState<string | undefined>();
  const broken = state.status === 'ready' && brokenUrl === state.url;

  return (
    <AspectRatio ratio={ratio}>
      {state.status === 'loading' ? (
        <Skeleton radius={radius} data-testid="poster-loading" />
      ) : state.status === 'ready' && !broken ? (
        <Image
          src={state.url}
          alt={alt}
          radius={radius}
          fit="cover"
          onError={() => setBrokenUrl(state.url)}
          data-testid="poster-image"
        />
      ) : (
        <Center
          bg="var(--mantine-color-default-hover)"
          style={{ borderRadius: `var(--mantine-radius-${radius})` }}
          role="img"
          aria-label={alt}
          data-testid="poster-placeholder"
        >
          <IconPhotoOff size={32} color="var(--mantine-color-dimmed)" aria-hidden />
        </Center>
      )}
    </AspectRatio>
  );
}
