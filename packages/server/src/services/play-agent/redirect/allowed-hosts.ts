import { lookup } from 'node:dns/promises';

/** Resolves a host name; throws when it has no address. */
export type HostResolver = (host: string) => Promise<unknown>;

export const resolveHost: HostResolver = (host) => lookup(host);

/**
 * Whether a redirect target may be sent to a player (PLAY_AGENT_DRIVE_A_REDIRECT_ALLOWED_HOSTS): with
 * suffixes, the host must be one of them or end in `.<suffix>` (http or https); without, the link must be
 * https and its host must resolve. Answers the target host, or null when refused.
 */
export async function allowedRedirectHost(
  url: string,
  suffixes: readonly string[],
  resolve: HostResolver = resolveHost,
): Promise<string | null> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return null;
  }
  const host = target.hostname.toLowerCase().replace(/\.$/, '');
  if (host === '' || target.username || target.password) return null;
  const normalized = suffixes
    .map((suffix) =>
      suffix
        .trim()
        .toLowerCase()
        .replace(/^\.+|\.$/g, ''),
    )
    .filter(Boolean);
  if (normalized.length > 0) {
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return null;
    return normalized.some((suffix) => host === suffix || host.endsWith(`.${suffix}`)) ? host : null;
  }
  if (target.protocol !== 'https:') return null;
  try {
    await resolve(host.replace(/^\[|\]$/g, ''));
    return host;
  } catch {
    return null;
  }
}
