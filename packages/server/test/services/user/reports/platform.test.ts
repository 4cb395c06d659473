import { describe, expect, it } from 'vitest';
import { REPORT_PLATFORMS } from '@svc/contracts';
import { classifyPlatform } from '../../../../src/services/user/reports/platform.js';
import { DEVICES } from './report-fixtures.js';

/** Each case is [client, device name, user agent, expected platform]; a failure names every wrong case. */
function expectPlatforms(cases: [string, string, string, string][]): void {
  const answers = cases.map(([client, deviceName, userAgent]) => [
    client,
    deviceName,
    userAgent,
    classifyPlatform({ client, deviceName, userAgent }),
  ]);
  expect(answers).toEqual(cases);
}

describe('the report platform of a player', () => {
  it('is not iOS for an HTTP library whose name holds the letters "ios" (axios), nor for other libraries', () => {
    expectPlatforms([
      ['', '', 'axios/1.7.2', 'other'],
      ['', '', 'okhttp/4.12.0', 'other'],
      ['Kodi', 'raspberry', 'Kodi/20.2', 'other'],
    ]);
  });

  it('reads real user agents of phones, tablets, desktops and TVs with the parser', () => {
    const agents: [string, string][] = [
      [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
        'ios',
      ],
      [
        'Mozilla/5.0 (iPad; CPU OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
        'ios',
      ],
      [
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
        'android',
      ],
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Safari/537.36',
        'windows',
      ],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
        'macos',
      ],
      ['Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0', 'linux'],
      [
        'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76 TV Safari/537.36',
        'tv',
      ],
      [
        'Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79 Safari/537.36',
        'tv',
      ],
      ['Roku/DVP-12.5 (12.5.0.4178)', 'tv'],
      ['AppleCoreMedia/1.0.0.21K69 (Apple TV; U; CPU OS 17_2 like Mac OS X; en_us)', 'tv'],
      ['Infuse/7.7.1 (iPhone; iOS 17.2; Scale/3.00)', 'ios'],
    ];
    expectPlatforms(agents.map(([userAgent, platform]) => ['', '', userAgent, platform]));
  });

  it('names the platform of single-platform Emby and Jellyfin apps when the user agent says little', () => {
    expectPlatforms([
      ['Emby for Android', 'Pixel', 'axios/1.7.2', 'android'],
      ['Jellyfin Android', 'Pixel', 'okhttp/4.12.0', 'android'],
      ['Findroid', 'OnePlus', '', 'android'],
      ['Swiftfin', 'iPhone', 'Swiftfin/1.0', 'ios'],
      ['Emby for iOS', 'Anna', 'Emby/2.0', 'ios'],
      ['Emby for Samsung', 'QLED', '', 'tv'],
      ['Jellyfin Android TV', 'Box', 'okhttp/4', 'tv'],
    ]);
  });

  it('takes a TV from the device name, and an OS from the device name when nothing else tells', () => {
    expectPlatforms([
      ['Emby for Android', 'SHIELD Android TV', 'Dalvik/2.1.0 (Linux; U; Android 12)', 'tv'],
      ['Infuse', 'Living room Apple TV', 'Infuse/7.6', 'tv'],
      ['Infuse', 'Living room', 'Infuse/7.6 tvOS/17.2', 'tv'],
      ['Emby Theater', 'Windows PC', 'Electron', 'windows'],
      ['VLC', 'iPad', 'VLC/3.0.20 LibVLC/3.0.20', 'ios'],
      // Multi-platform players without a system in their agent stay unplaced.
      ['mpv', '', 'mpv 0.37.0', 'other'],
      ['', '', 'Lavf/59.27.100', 'other'],
      ['Jellyfin Web', 'Chrome', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120', 'windows'],
    ]);
  });

  it('covers every platform with the report tests’ devices', () => {
    expect(new Set(DEVICES.map((device) => classifyPlatform(device)))).toEqual(new Set(REPORT_PLATFORMS));
  });
});
