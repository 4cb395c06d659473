import type { ActivityEvent, ActivityMediaType } from '@svc/contracts';

/** A small deterministic PRNG (mulberry32), so a failing seed can be replayed. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  uuid(): string {
    const hex = Array.from({ length: 32 }, () => Math.floor(this.next() * 16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
}

export interface FixtureMedia {
  id: string;
  name: string;
  seriesName: string | null;
  type: ActivityMediaType;
  runtimeSec: number | null;
}

export interface FixtureDevice {
  client: string;
  deviceName: string;
  userAgent: string;
}

/** Clients and devices covering every report platform (`other` included). */
export const DEVICES: readonly FixtureDevice[] = [
  { client: 'Emby for Android', deviceName: 'Pixel 8', userAgent: 'Dalvik/2.1.0 (Linux; U; Android 14)' },
  { client: 'Emby for Android', deviceName: 'Galaxy Tab', userAgent: 'Dalvik/2.1.0 (Linux; U; Android 13)' },
  { client: 'Emby for Android TV', deviceName: 'SHIELD', userAgent: 'okhttp/4.9' },
  { client: 'Infuse', deviceName: 'Living room Apple TV', userAgent: 'Infuse/7.6 tvOS/17.2' },
  { client: 'Infuse', deviceName: "Anna's iPhone", userAgent: 'Infuse/7.6 (iPhone; iOS 17.2)' },
  {
    client: 'Emby Web',
    deviceName: 'Chrome',
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120',
  },
  {
    client: 'Emby Web',
    deviceName: 'Safari',
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) Safari/605',
  },
  { client: 'Emby Theater', deviceName: 'htpc', userAgent: 'Electron (X11; Linux x86_64)' },
  { client: 'Kodi', deviceName: 'raspberry', userAgent: 'Kodi/20.2' },
  { client: 'Emby for Samsung', deviceName: 'QLED', userAgent: 'Mozilla/5.0 (SMART-TV; Tizen 7.0)' },
];

export interface GeneratedLog {
  events: ActivityEvent[];
  media: FixtureMedia[];
}

const SHANGHAI = 8 * 3600_000;
const DAY = 86_400_000;

/** Shanghai midnights and month starts near `ms`, to put events right on bucket edges. */
function edgeNear(random: Random, ms: number): number {
  const local = new Date(ms + SHANGHAI);
  const midnight = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()) - SHANGHAI;
  const monthStart = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1) - SHANGHAI;
  const edge = random.pick([midnight, monthStart, midnight + 21 * 3600_000, midnight + 30 * 60_000]);
  return edge + random.pick([-1, 0, 0, 1, -60_000]);
}

/**
 * A seeded activity log between `from` and `to`: sessions of the given users with start, progress and stop events
 * (some without a start or stop, some redirected with 0 bytes), several devices and media types; many events sit
 * right on Shanghai midnights, month starts, 21:00 and half hours. Times strictly increase within a session.
 */
export function generateLog(
  random: Random,
  options: { userIds: readonly string[]; from: number; to: number; sessions: number },
): GeneratedLog {
  const types: ActivityMediaType[] = ['movie', 'episode', 'audio', 'other'];
  const media: FixtureMedia[] = Array.from({ length: 36 }, (_, index) => {
    const type = types[index % 4]!;
    return {
      id: `m-${String(index).padStart(3, '0')}${index % 5 === 0 ? 'X' : ''}`,
      name: `Title ${index}`,
      seriesName: type === 'episode' ? `Series ${index % 3}` : null,
      type,
      runtimeSec: index % 9 === 0 ? null : index % 11 === 0 ? 0 : random.int(180, 7200),
    };
  });
  const events: ActivityEvent[] = [];
  for (let s = 0; s < options.sessions; s += 1) {
    const userId = random.pick(options.userIds);
    const item = random.pick(media);
    const device = random.pick(DEVICES);
    const redirect = random.chance(0.15);
    const sessionId = random.chance(0.5) ? random.uuid() : `sess-${s}-${random.int(0, 1e6)}`;
    let at = options.from + Math.floor(random.next() * (options.to - options.from));
    if (random.chance(0.25)) at = edgeNear(random, at);
    const count = random.int(1, 7);
    const withStart = random.chance(0.9);
    const withStop = random.chance(0.8);
    let position = random.chance(0.2) ? random.int(0, 3000) : 0;
    for (let e = 0; e < count; e += 1) {
      const type =
        e === 0 && withStart ? 'start' : e === count - 1 && withStop && count > 1 ? 'stop' : 'progress';
      const gapMs = e === 0 ? 0 : random.pick([1, 1000, 10_000, 60_000, 600_000, 1_800_000, 3 * 3600_000]);
      at += gapMs;
      if (e > 0 && random.chance(0.1)) at = Math.max(at, edgeNear(random, at)) + (random.chance(0.5) ? 0 : 1);
      const durationMs = e === 0 ? 0 : Math.min(gapMs, random.int(0, gapMs));
      position += Math.floor(durationMs / 1000);
      events.push({
        eventId: random.uuid(),
        userId,
        eventType: type,
        occurredAt: new Date(at).toISOString().replace('Z', random.chance(0.5) ? 'Z' : '+00:00'),
        sessionId,
        clientIp: `198.51.100.${random.int(1, 254)}`,
        userAgent: device.userAgent,
        mediaId: item.id,
        mediaType: item.type,
        mediaName: item.name,
        seriesName: item.seriesName,
        durationMs,
        bytesDelta: redirect ? 0 : e === 0 ? random.int(0, 4096) : random.int(0, 50_000_000),
        positionSec: random.chance(0.1) ? null : position,
        runtimeSec: item.runtimeSec,
        nodeId: 'node-local-play-agent',
        endpointId: null,
        client: device.client,
        deviceName: device.deviceName,
        deviceId: `${device.deviceName}-id`,
        playMethod: redirect ? 'Redirect' : random.pick(['DirectPlay', 'DirectStream']),
        result: null,
        reason: type === 'stop' ? 'user stopped' : null,
        extras: {},
      });
    }
  }
  return { events, media };
}

export { DAY as FIXTURE_DAY_MS };
