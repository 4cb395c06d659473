/** A playback address as the separate fields some Emby-compatible apps ask for (host, port, HTTPS). */
export interface ServerAddress {
  host: string;
  port: number;
  https: boolean;
  /** A path prefix the app must keep (a reverse proxy below a path); '' when none. */
  path: string;
}

/** Splits a route url into the fields of an app's "add server" form; null when it is no http(s) address. */
export function splitServerAddress(url: string): ServerAddress | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const https = parsed.protocol === 'https:';
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : https ? 443 : 80,
    https,
    path: parsed.pathname.replace(/\/+$/, ''),
  };
}
