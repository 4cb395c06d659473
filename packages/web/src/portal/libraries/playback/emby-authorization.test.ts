import { describe, expect, it } from 'vitest';
import {
  browserName,
  buildEmbyAuthorization,
  DEVICE_ID_KEY,
  randomHexId,
  stableDeviceId,
  type KeyValueStore,
} from './emby-authorization.js';

const identity = {
  client: 'SVC Web',
  device: 'Chrome',
  deviceId: '0123456789abcdef0123456789abcdef',
  version: '1',
  token: 'svc_acc_abc',
};

describe('buildEmbyAuthorization', () => {
  it('builds the MediaBrowser header with quoted, encoded values', () => {
    expect(buildEmbyAuthorization(identity)).toBe(
      'MediaBrowser Client="SVC%20Web", Device="Chrome", DeviceId="0123456789abcdef0123456789abcdef", Version="1", Token="svc_acc_abc"',
    );
  });

  it('cannot be broken by quotes or commas in a value', () => {
    const header = buildEmbyAuthorization({ ...identity, device: 'My "TV", living room' });
    expect(header).toContain('Device="My%20%22TV%22%2C%20living%20room"');
  });
});

describe('browserName', () => {
  it.each([
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
      'Chrome',
    ],
    ['Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/126.0 Safari/537.36 Edg/126.0', 'Edge'],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox'],
    [
      'Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      'Safari',
    ],
    ['Mozilla/5.0 AppleWebKit/537.36 Chrome/120.0 Safari/537.36 OPR/106.0', 'Opera'],
    ['curl/8.0', 'Web browser'],
  ])('%s → %s', (agent, name) => {
    expect(browserName(agent)).toBe(name);
  });
});

function memoryStore(initial: Record<string, string> = {}): KeyValueStore & { values: Map<string, string> } {
  const values = new Map(Object.entries(initial));
  return {
    values,
    getItem: (key) => values.get(key) ?? null,
    setItem: (key, value) => void values.set(key, value),
  };
}

describe('stableDeviceId', () => {
  it('makes an id once and then keeps returning it', () => {
    const store = memoryStore();
    let made = 0;
    const make = () => {
      made += 1;
      return `${'a'.repeat(31)}${made}`;
    };
    const first = stableDeviceId(store, make);
    expect(stableDeviceId(store, make)).toBe(first);
    expect(made).toBe(1);
    expect(store.values.get(DEVICE_ID_KEY)).toBe(first);
  });

  it('replaces a stored value that is not an id of ours', () => {
    const store = memoryStore({ [DEVICE_ID_KEY]: 'garbage' });
    expect(stableDeviceId(store, () => 'b'.repeat(32))).toBe('b'.repeat(32));
  });

  it('still answers when storage throws', () => {
    const broken: KeyValueStore = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
    };
    expect(stableDeviceId(broken, () => 'c'.repeat(32))).toBe('c'.repeat(32));
  });
});

describe('randomHexId', () => {
  it('gives 32 hex digits from 16 random bytes', () => {
    expect(randomHexId((bytes) => bytes.fill(0xab))).toBe('ab'.repeat(16));
    expect(randomHexId()).toMatch(/^[0-9a-f]{32}$/);
  });
});
