import { describe, expect, it } from 'vitest';
import { buildReportRequest, reportBody, type ReportTarget } from './report-request.js';

const target: ReportTarget = {
  baseUrl: 'http://media.lan:19090/',
  itemId: '0f8fad5bd9cb469fa16570867728950e',
  mediaSourceId: '0f8fad5bd9cb469fa16570867728950e',
  playSessionId: 'aa'.repeat(16),
  identity: {
    client: 'SVC Web',
    device: 'Firefox',
    deviceId: 'bb'.repeat(16),
    version: '1',
    token: 'svc_acc_x',
  },
};

describe('reportBody', () => {
  it('carries the Emby fields with the position in ticks', () => {
    expect(reportBody({ kind: 'progress', positionSeconds: 61.5, isPaused: true }, target)).toEqual({
      ItemId: target.itemId,
      MediaSourceId: target.mediaSourceId,
      PlaySessionId: target.playSessionId,
      PositionTicks: 615_000_000,
      IsPaused: true,
      PlayMethod: 'DirectStream',
      CanSeek: true,
    });
  });

  it('leaves MediaSourceId out when it is not known', () => {
    const { mediaSourceId: _unused, ...withoutSource } = target;
    expect(
      reportBody({ kind: 'start', positionSeconds: 0, isPaused: false }, withoutSource),
    ).not.toHaveProperty('MediaSourceId');
  });
});

describe('buildReportRequest', () => {
  it('posts to the route of each report kind', () => {
    const path = (kind: 'start' | 'progress' | 'stop') =>
      new URL(buildReportRequest({ kind, positionSeconds: 0, isPaused: false }, target).url).pathname;
    expect(path('start')).toBe('/Sessions/Playing');
    expect(path('progress')).toBe('/Sessions/Playing/Progress');
    expect(path('stop')).toBe('/Sessions/Playing/Stopped');
  });

  it('uses the Emby header and a JSON body, also towards the play-agent on another origin', () => {
    const { url, init } = buildReportRequest({ kind: 'stop', positionSeconds: 90, isPaused: true }, target);
    expect(url).toBe('http://media.lan:19090/Sessions/Playing/Stopped');
    expect(init.method).toBe('POST');
    expect(init.mode).toBeUndefined();
    expect(init.keepalive).toBe(true);
    const headers = init.headers as Record<string, string>;
    expect(headers['Content-Type']).toBe('application/json');
    expect(headers['X-Emby-Authorization']).toMatch(/^MediaBrowser Client="SVC%20Web", Device="Firefox", /);
    expect(headers['X-Emby-Authorization']).toContain('Token="svc_acc_x"');
    expect(JSON.parse(init.body as string)).toEqual({
      ItemId: target.itemId,
      MediaSourceId: target.mediaSourceId,
      PlaySessionId: target.playSessionId,
      PositionTicks: 900_000_000,
      IsPaused: true,
      PlayMethod: 'DirectStream',
      CanSeek: true,
    });
  });
});
