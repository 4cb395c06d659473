import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client.js';
import { licenceRefusal } from './node-errors.js';

describe('licenceRefusal', () => {
  it('reads the quota details of LICENSE_QUOTA_FULL', () => {
    const error = new ApiError(409, 'LICENSE_QUOTA_FULL', 'licence quota full: 3 of 3', {
      serviceType: 'svc-play-agent',
      used: 3,
      max: 3,
    });
    expect(licenceRefusal(error)).toEqual({ kind: 'quota', serviceType: 'svc-play-agent', used: 3, max: 3 });
  });

  it('copes with quota details that are missing or odd', () => {
    expect(licenceRefusal(new ApiError(409, 'LICENSE_QUOTA_FULL', 'full'))).toEqual({
      kind: 'quota',
      serviceType: null,
      used: null,
      max: null,
    });
    expect(
      licenceRefusal(new ApiError(409, 'LICENSE_QUOTA_FULL', 'full', { used: '3', max: Number.NaN })),
    ).toEqual({ kind: 'quota', serviceType: null, used: null, max: null });
  });

  it('recognises the edition, state and availability refusals', () => {
    expect(licenceRefusal(new ApiError(409, 'EDITION_NOT_DISTRIBUTED', 'x'))).toEqual({ kind: 'edition' });
    expect(licenceRefusal(new ApiError(409, 'LICENSE_NOT_ACTIVE', 'x', { state: 'EXPIRED' }))).toEqual({
      kind: 'notActive',
      state: 'EXPIRED',
    });
    expect(licenceRefusal(new ApiError(503, 'LICENSE_UNAVAILABLE', 'x'))).toEqual({ kind: 'unavailable' });
  });

  it('leaves other errors alone', () => {
    expect(licenceRefusal(new ApiError(409, 'NODE_ID_TAKEN', 'x'))).toBeNull();
    expect(licenceRefusal(new Error('LICENSE_QUOTA_FULL'))).toBeNull();
  });
});
