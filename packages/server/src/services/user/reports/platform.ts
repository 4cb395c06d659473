import Bowser from 'bowser';
import type { ReportPlatform } from '@svc/contracts';

/** What an activity event says about the player: the app's name, the device's name and the user agent. */
export interface PlayerIdentity {
  client: string;
  deviceName: string;
  userAgent: string;
}

/**
 * Apps of the Emby and Jellyfin families that run on one platform only, by their lower-case client name.
 * Apps found on several platforms (Emby Web, Jellyfin Web, Emby Theater, Jellyfin Media Player, Infuse, Kodi,
 * VLC, mpv, ffmpeg) are not listed: their user agent or device name decides.
 */
const SINGLE_PLATFORM_APPS: Record<string, ReportPlatform> = {
  'emby for android': 'android',
  'emby for android tv': 'tv',
  'emby for apple tv': 'tv',
  'emby for fire tv': 'tv',
  'emby for ios': 'ios',
  'emby for lg': 'tv',
  'emby for macos': 'macos',
  'emby for roku': 'tv',
  'emby for samsung': 'tv',
  'emby for windows': 'windows',
  findroid: 'android',
  'jellyfin android': 'android',
  'jellyfin android tv': 'tv',
  'jellyfin ios': 'ios',
  'jellyfin roku': 'tv',
  'jellyfin tizen': 'tv',
  'jellyfin webos': 'tv',
  'jellyfin for webos': 'tv',
  swiftfin: 'ios',
  'swiftfin ios': 'ios',
  'swiftfin tvos': 'tv',
};

/**
 * Names of television devices and systems, as whole words (a phrase is consecutive words): apps name their
 * device so ("SHIELD Android TV", "Living room Apple TV") and players on them send user agents the parser does
 * not place ("AppleCoreMedia/1.0 (Apple TV; …)", "Infuse/7.6 tvOS/17.2").
 */
const TV_NAMES = [
  ['apple', 'tv'],
  ['appletv'],
  ['tvos'],
  ['android', 'tv'],
  ['google', 'tv'],
  ['fire', 'tv'],
  ['firetv'],
  ['shield'],
  ['chromecast'],
  ['roku'],
  ['bravia'],
  ['tizen'],
  ['webos'],
  ['smart', 'tv'],
  ['smarttv'],
];

/** Operating systems as the user-agent parser names them. */
const OS_PLATFORMS: Record<string, ReportPlatform> = {
  android: 'android',
  ios: 'ios',
  windows: 'windows',
  'windows phone': 'windows',
  macos: 'macos',
  linux: 'linux',
  'chrome os': 'linux',
  tizen: 'tv',
  webos: 'tv',
  roku: 'tv',
};

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

function namesTv(text: string): boolean {
  const list = words(text);
  return TV_NAMES.some((name) =>
    list.some((_, start) => name.every((word, offset) => list[start + offset] === word)),
  );
}

/** The platform a user-agent-like text names, through the parser (bowser): OS, or a TV form factor. */
function parsedPlatform(text: string): ReportPlatform | undefined {
  if (!text) return undefined;
  const parsed = Bowser.parse(text);
  if (parsed.platform.type === 'tv') return 'tv';
  return parsed.os.name ? OS_PLATFORMS[parsed.os.name.toLowerCase()] : undefined;
}

/**
 * The report's platform of a player (docs/report.md, Devices), first answer wins:
 * 1. `tv` when the client, the device name or the user agent names a television device or system;
 * 2. the platform of an app that exists on one platform only (by its client name, e.g. Emby for Android);
 * 3. the operating system (or TV form factor) the user agent names, read by a maintained parser;
 * 4. the same read from the device name (apps name devices "iPhone", "iPad", "Windows PC");
 * 5. `other` (HTTP libraries such as axios or okhttp, ffmpeg's Lavf, mpv, VLC, Kodi without a system).
 */
export function classifyPlatform(player: PlayerIdentity): ReportPlatform {
  if (namesTv(`${player.client} ${player.deviceName} ${player.userAgent}`)) return 'tv';
  return (
    SINGLE_PLATFORM_APPS[player.client.trim().toLowerCase()] ??
    parsedPlatform(player.userAgent) ??
    parsedPlatform(player.deviceName) ??
    'other'
  );
}
