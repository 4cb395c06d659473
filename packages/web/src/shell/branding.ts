import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { endpoints, type BrandingResponse } from '@svc/contracts';
import { callEndpoint } from '../api/endpoint-client.js';

export const DEFAULT_SYSTEM_NAME = 'SVC Media';

/** Where the public branding is cached; the settings page invalidates it after a save. */
export const PUBLIC_BRANDING_QUERY_KEY = ['public', endpoints.user.getBranding.path] as const;

/** The public branding (system name, logo), read before sign-in and shared by every page. */
export function useBranding(): BrandingResponse | undefined {
  const { data } = useQuery({
    queryKey: PUBLIC_BRANDING_QUERY_KEY,
    queryFn: ({ signal }) => callEndpoint(undefined, endpoints.user.getBranding, { signal }),
    staleTime: 30_000,
  });
  return data;
}

export function systemNameOf(branding: BrandingResponse | undefined): string {
  return branding?.systemName.trim() || DEFAULT_SYSTEM_NAME;
}

/** Browser tab title "page · system name" and the logo as favicon. */
export function useDocumentBranding(pageTitle?: string): void {
  const branding = useBranding();
  const systemName = systemNameOf(branding);
  useEffect(() => {
    document.title = pageTitle ? `${pageTitle} · ${systemName}` : systemName;
  }, [pageTitle, systemName]);
  const logoUrl = branding?.logoUrl ?? null;
  useEffect(() => {
    let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (!logoUrl) {
      link?.remove();
      return;
    }
    if (!link) {
      link = document.createElement('link');
      link.rel = 'icon';
      document.head.appendChild(link);
    }
    link.href = logoUrl;
  }, [logoUrl]);
}
