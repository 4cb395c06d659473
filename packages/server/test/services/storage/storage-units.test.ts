import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Transfer } from '@svc/contracts';
import { parseSingleRange as parseRange } from '../../../src/platform/http/file-delivery/range.js';
import { planFileResponse } from '../../../src/services/storage/file-response.js';
import { isPublicAddress } from '../../../src/services/storage/providers/network-guard.js';
import { probeResultOf } from '../../../src/services/storage/probe/probe-tool.js';
import { TransferEvents } from '../../../src/services/storage/transfers/transfer-events.js';

describe('Range header', () => {
  it.each([
    [undefined, 100, { kind: 'full' }],
    ['bytes=0-9', 100, { kind: 'partial', range: { start: 0, end: 9 } }],
    ['bytes=90-', 100, { kind: 'partial', range: { start: 90, end: 99 } }],
    ['bytes=-10', 100, { kind: 'partial', range: { start: 90, end: 99 } }],
    ['bytes=-200', 100, { kind: 'partial', range: { start: 0, end: 99 } }],
    ['bytes=50-500', 100, { kind: 'partial', range: { start: 50, end: 99 } }],
    ['bytes=100-', 100, { kind: 'unsatisfiable' }],
    ['bytes=-0', 100, { kind: 'unsatisfiable' }],
    ['bytes=0-', 0, { kind: 'unsatisfiable' }],
    ['bytes=9-0', 100, { kind: 'full' }],
    ['bytes=0-1,4-5', 100, { kind: 'full' }],
    ['bytes=-', 100, { kind: 'full' }],
    ['lines=0-1', 100, { kind: 'full' }],
  ])('%s of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });

  it('drops the range when If-Range names another version', () => {
    const file = { name: 'a.mkv', size: 100, mtime: new Date('2024-01-01T00:00:00Z') };
    const plan = planFileResponse('GET', { range: 'bytes=0-9', 'if-range': '"other"' }, file, {
      attachment: false,
    });
    expect(plan.status).toBe(200);
    const dated = planFileResponse(
      'GET',
      { range: 'bytes=0-9', 'if-range': file.mtime.toUTCString() },
      file,
      {
        attachment: false,
      },
    );
    expect(dated.status).toBe(206);
  });
});

describe('public address check (WebDAV without allowPrivateNetwork)', () => {
  it.each([
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.10', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['64:ff9b::a00:1', false],
    ['not an address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('ffprobe output mapping', () => {
  it('keeps video, audio and subtitle streams, drops cover art and data', () => {
    const result = probeResultOf(
      {
        format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: 'N/A', size: '99' },
        streams: [
          {
            index: 0,
            codec_type: 'video',
            codec_name: 'h264',
            width: 1920,
            height: 1080,
            disposition: { default: 1 },
          },
          { index: 1, codec_type: 'audio', codec_name: 'eac3', channels: 6, tags: { LANGUAGE: 'und' } },
          { index: 2, codec_type: 'data', codec_name: 'bin_data' },
          { index: 3, codec_type: 'video', codec_name: 'mjpeg', disposition: { attached_pic: 1 } },
        ],
      },
      12,
    );
    expect(result).toEqual({
      container: 'mov,mp4,m4a,3gp,3g2,mj2',
      durationSeconds: null,
      bitrate: null,
      size: 99,
      streams: [
        { index: 0, type: 'video', codec: 'h264', width: 1920, height: 1080, default: true, forced: false },
        { index: 1, type: 'audio', codec: 'eac3', channels: 6, default: false, forced: false },
      ],
    });
  });

  it('keeps the chapters with their start and title, skipping ones without a readable start', () => {
    const result = probeResultOf(
      {
        format: { format_name: 'matroska,webm', duration: '6.0' },
        streams: [],
        chapters: [
          { start_time: '0.000000', tags: { title: 'Opening' } },
          { start_time: 'N/A', tags: { title: 'Broken' } },
          { start_time: '2.500000', tags: { TITLE: ' Middle ' } },
          { start_time: '4.000000' },
        ],
      },
      1,
    );
    expect(result.chapters).toEqual([
      { startSeconds: 0, title: 'Opening' },
      { startSeconds: 2.5, title: 'Middle' },
      { startSeconds: 4 },
    ]);
    expect(probeResultOf({ streams: [] }, 1)).not.toHaveProperty('chapters');
  });
});

describe('transfer event throttle', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const transfer = (done: number, state: Transfer['state'] = 'running') =>
    ({ id: 't1', state, bytes: { done, total: 100 } }) as Transfer;

  it('sends at most four progress events a second, the latest value last, state changes at once', () => {
    vi.useFakeTimers();
    const events = new TransferEvents();
    const seen: number[] = [];
    events.subscribe((t) => seen.push(t.bytes.done));
    for (let done = 1; done <= 50; done++) {
      events.progress(transfer(done));
      vi.advanceTimersByTime(20); // 50 updates in one second
    }
    vi.advanceTimersByTime(300);
    expect(seen.length).toBeLessThanOrEqual(5);
    expect(seen.at(-1)).toBe(50);
    events.progress(transfer(60));
    events.state(transfer(100, 'succeeded'));
    expect(seen.at(-1)).toBe(100);
    vi.advanceTimersByTime(1000);
    expect(seen.at(-1)).toBe(100);
    events.close();
  });
});
