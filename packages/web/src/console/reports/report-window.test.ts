import { describe, expect, it } from 'vitest';
import { reportWindowQuerySchema } from '@svc/contracts';
import { customInputsOf, DEFAULT_FILTERS, windowQuery } from './report-window.js';

describe('report window query', () => {
  it('sends a preset alone, with the filters that are set', () => {
    expect(windowQuery(DEFAULT_FILTERS)).toEqual({ ok: true, query: { preset: 'last7d' } });
    const result = windowQuery({
      ...DEFAULT_FILTERS,
      preset: 'lastNight',
      customFrom: '2024-03-01T00:00',
      mediaType: 'episode',
      userId: '0b5e3c1e-5d7a-4c53-9d1b-6f1e2f3a4b5c',
    });
    expect(result).toEqual({
      ok: true,
      query: { preset: 'lastNight', mediaType: 'episode', userId: '0b5e3c1e-5d7a-4c53-9d1b-6f1e2f3a4b5c' },
    });
    // Custom inputs are not sent with a preset (the server refuses them).
    if (result.ok) expect(reportWindowQuerySchema.safeParse(result.query).success).toBe(true);
  });

  it('turns custom inputs into Shanghai times with the offset', () => {
    const result = windowQuery({
      ...DEFAULT_FILTERS,
      preset: 'custom',
      customFrom: '2024-02-28T21:00',
      customTo: '2024-03-01T00:00',
    });
    expect(result).toEqual({
      ok: true,
      query: { preset: 'custom', from: '2024-02-28T21:00:00+08:00', to: '2024-03-01T00:00:00+08:00' },
    });
  });

  it('names what is wrong with a custom range', () => {
    const custom = { ...DEFAULT_FILTERS, preset: 'custom' as const };
    expect(windowQuery({ ...custom, customTo: '2024-03-01T00:00' })).toEqual({
      ok: false,
      problem: 'fromRequired',
    });
    expect(windowQuery({ ...custom, customFrom: '2024-03-01T00:00' })).toEqual({
      ok: false,
      problem: 'toRequired',
    });
    expect(windowQuery({ ...custom, customFrom: '2024-03-01T00:00', customTo: '2024-03-01T00:00' })).toEqual({
      ok: false,
      problem: 'order',
    });
    expect(windowQuery({ ...custom, customFrom: '2023-01-01T00:00', customTo: '2024-03-01T00:00' })).toEqual({
      ok: false,
      problem: 'span',
    });
    // Exactly 400 days is allowed.
    expect(windowQuery({ ...custom, customFrom: '2023-01-26T00:00', customTo: '2024-03-01T00:00' }).ok).toBe(
      true,
    );
    expect(windowQuery({ ...custom, customFrom: '2023-01-25T23:59', customTo: '2024-03-01T00:00' })).toEqual({
      ok: false,
      problem: 'span',
    });
  });

  it('starts a custom range from a resolved one', () => {
    expect(customInputsOf({ from: '2024-03-05T13:00:00Z', to: '2024-03-06T00:00:00+08:00' })).toEqual({
      customFrom: '2024-03-05T21:00',
      customTo: '2024-03-06T00:00',
    });
  });
});
