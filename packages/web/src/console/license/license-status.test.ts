import { describe, expect, it } from 'vitest';
import {
  daysUntil,
  licenseStateColor,
  reasonKey,
  slotPercent,
  upgradeAvailability,
  validityNote,
} from './license-status.js';

const now = new Date('2025-03-01T12:00:00Z');

describe('licence state badges', () => {
  it('colours every state', () => {
    expect(licenseStateColor('ACTIVE')).toBe('green');
    expect(licenseStateColor('GRACE')).toBe('orange');
    expect(licenseStateColor('EXPIRED')).toBe('red');
    expect(licenseStateColor('INVALID')).toBe('red');
    expect(licenseStateColor('NONE')).toBe('gray');
  });

  it('translates known reasons only', () => {
    expect(reasonKey('install-mismatch')).toBe('reason.install-mismatch');
    expect(reasonKey('no-public-key')).toBe('reason.no-public-key');
    expect(reasonKey('something-new')).toBeNull();
    expect(reasonKey(null)).toBeNull();
  });
});

describe('validity', () => {
  it('counts whole days, rounding up', () => {
    expect(daysUntil('2025-03-11T12:00:00Z', now)).toBe(10);
    expect(daysUntil('2025-03-01T13:00:00Z', now)).toBe(1);
    expect(daysUntil('2025-02-27T12:00:00Z', now)).toBe(-2);
    expect(daysUntil(null, now)).toBeNull();
    expect(daysUntil('not a date', now)).toBeNull();
  });

  it('tells the days left of an ACTIVE licence and of the grace period', () => {
    const dates = { validUntil: '2025-03-31T12:00:00Z', graceUntil: '2025-04-10T12:00:00Z' };
    expect(validityNote({ status: 'ACTIVE', ...dates }, now)).toEqual({
      key: 'validity.activeDays',
      days: 30,
    });
    expect(validityNote({ status: 'GRACE', ...dates }, now)).toEqual({ key: 'validity.graceDays', days: 40 });
    expect(validityNote({ status: 'EXPIRED', ...dates }, now)).toBeNull();
    expect(validityNote({ status: 'NONE', validUntil: null, graceUntil: null }, now)).toBeNull();
  });
});

describe('upgradeAvailability', () => {
  const base = {
    edition: 'STANDALONE' as const,
    publicKeyConfigured: true,
    activated: true,
    licenseId: 'lic-1',
  };

  it('is available on a STANDALONE install with a key and a licence', () => {
    expect(upgradeAvailability(base)).toBe('available');
  });

  it('names the first missing piece', () => {
    expect(upgradeAvailability({ ...base, edition: 'DISTRIBUTED', publicKeyConfigured: false })).toBe(
      'distributed',
    );
    expect(upgradeAvailability({ ...base, publicKeyConfigured: false, activated: false })).toBe('no-key');
    expect(upgradeAvailability({ ...base, activated: false })).toBe('no-licence');
    expect(upgradeAvailability({ ...base, licenseId: null })).toBe('no-licence');
  });
});

describe('slotPercent', () => {
  it('is the share in use, capped at 100', () => {
    expect(slotPercent(1, 4)).toBe(25);
    expect(slotPercent(5, 4)).toBe(100);
    expect(slotPercent(0, 0)).toBe(0);
    expect(slotPercent(2, 0)).toBe(100);
  });
});
