/** The client name the portal's web player reports as (shown in the activity log). */
export const WEB_CLIENT_NAME = 'SVC Web';
export const WEB_CLIENT_VERSION = '1';
/** localStorage key of this browser's device id: stable across sessions, like an Emby client's. */
export const DEVICE_ID_KEY = 'svc.portal.device-id';

export interface ClientIdentity {
  client: string;
  device: string;
  deviceId: string;
  version: string;
  token: string;
}

/**
 * The `X-Emby-Authorization` value players send:
 * `MediaBrowser Client="SVC Web", Device="Chrome", DeviceId="…", Version="1", Token="…"`.
 * Values are percent-encoded as Emby and Jellyfin web clients do, so a quote or comma in a device name
 * cannot break the header (the play-agent decodes them).
 */
export function buildEmbyAuthorization(identity: ClientIdentity): string {
  const parts: [string, string][] = [
    ['Client', identity.client],
    ['Device', identity.device],
    ['DeviceId', identity.deviceId],
    ['Version', identity.version],
    ['Token', identity.token],
  ];
  return `MediaBrowser ${parts.map(([name, value]) => `${name}="${encodeURIComponent(value)}"`).join(', ')}`;
}

/** The browser's name from its user agent (order matters: Edge and Opera also say Chrome, Chrome says Safari). */
export function browserName(userAgent: string): string {
  const rules: [RegExp, string][] = [
    [/Edg(e|A|iOS)?\//, 'Edge'],
    [/OPR\/|Opera/, 'Opera'],
    [/Firefox\/|FxiOS\//, 'Firefox'],
    [/Chromium\//, 'Chromium'],
    [/Chrome\/|CriOS\//, 'Chrome'],
    [/Safari\//, 'Safari'],
  ];
  return rules.find(([pattern]) => pattern.test(userAgent))?.[1] ?? 'Web browser';
}

/** 32 random hex digits (crypto.getRandomValues works outside secure contexts, unlike randomUUID). */
export function randomHexId(
  random: (bytes: Uint8Array) => Uint8Array = (bytes) => crypto.getRandomValues(bytes),
): string {
  return Array.from(random(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Minimal storage the device id is kept in (localStorage in the page, a map in tests). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** This browser's device id: read from the store, or made once and kept there. */
export function stableDeviceId(store: KeyValueStore, makeId: () => string = randomHexId): string {
  try {
    const stored = store.getItem(DEVICE_ID_KEY);
    if (stored && /^[0-9a-f]{32}$/.test(stored)) return stored;
  } catch {
    // storage refused (private mode): a fresh id for this page
  }
  const id = makeId();
  try {
    store.setItem(DEVICE_ID_KEY, id);
  } catch {
    // not kept: the next page makes another
  }
  return id;
}
