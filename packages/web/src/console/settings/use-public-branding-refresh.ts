import { useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { PUBLIC_BRANDING_QUERY_KEY } from '../../shell/branding.js';

/** Fetches the public branding again, so the header, tab title and favicon show a saved change at once. */
export function usePublicBrandingRefresh(): () => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(
    () => queryClient.invalidateQueries({ queryKey: [...PUBLIC_BRANDING_QUERY_KEY] }),
    [queryClient],
  );
}
