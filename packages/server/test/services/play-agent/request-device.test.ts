import { describe, expect, it } from 'vitest';
import { deviceOf } from '../../../src/services/play-agent/proto-a/protocol.js';
import { readClientAuthorization } from '../../../src/services/play-agent/stream/authorization.js';

const issuedTo = { client: 'Emby for Android', deviceName: 'Pixel', deviceId: 'pixel-1', version: '3.4.20' };

describe('the client and device a request is attributed to', () => {
  it('is the device the token was issued to when the request carries only the token', () => {
    for (const named of [
      readClientAuthorization({}, { api_key: 'svc_ply_x' }),
      readClientAuthorization({ 'x-emby-token': 'svc_ply_x' }),
    ]) {
      expect(deviceOf(named, issuedTo)).toEqual(issuedTo);
    }
  });

  it('takes what the request names field by field; the version only together with the token’s client', () => {
    const named = readClientAuthorization({
      'x-emby-authorization': 'MediaBrowser Client="Emby Theater", Device="Living Room", Token="svc_ply_x"',
    });
    expect(deviceOf(named, issuedTo)).toEqual({
      client: 'Emby Theater',
      deviceName: 'Living Room',
      deviceId: 'pixel-1',
      version: '',
    });
    const deviceOnly = readClientAuthorization({ 'x-emby-device-name': 'Tablet' }, { api_key: 'svc_ply_x' });
    expect(deviceOf(deviceOnly, issuedTo)).toEqual({ ...issuedTo, deviceName: 'Tablet' });
  });

  it('stays empty without a device of the token (portal tokens)', () => {
    expect(deviceOf(readClientAuthorization({}, { api_key: 'svc_acc_x' }), undefined)).toEqual({
      client: '',
      deviceName: '',
      deviceId: '',
      version: '',
    });
  });
});
