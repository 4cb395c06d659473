const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i;

/**
 * The config service's address as nodes reach it (the `{config_url}` of the install commands):
 * `SVC_CONFIG_BASE_URL`, except that a loopback host there (the default `http://127.0.0.1:18085`) is replaced by
 * `SVC_ADVERTISE_HOST` when that is not loopback, since a node on another machine cannot reach loopback.
 */
export function nodeInstallBaseUrl(settings: { configBaseUrl: string; advertiseHost: string }): string {
  const base = settings.configBaseUrl.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return base;
  }
  if (
    LOOPBACK.test(url.hostname) &&
    !LOOPBACK.test(settings.advertiseHost) &&
    settings.advertiseHost !== '::1'
  ) {
    url.hostname = settings.advertiseHost;
    return url.toString().replace(/\/+$/, '');
  }
  return base;
}
