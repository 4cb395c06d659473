import { describe, expect, it } from 'vitest';
import { libraryAccessSchema } from '@svc/contracts';
import { zodValidate } from '../../forms/zod-form.js';
import {
  libraryAccessFormErrors,
  libraryAccessValuesFrom,
  toLibraryAccessBody,
} from './library-access-form.js';

const A = '0b6f5d1e-3f3a-4c53-9d1d-2f4f3e1a0a01';
const B = '0b6f5d1e-3f3a-4c53-9d1d-2f4f3e1a0a02';
const GONE = '0b6f5d1e-3f3a-4c53-9d1d-2f4f3e1a0a03';

describe('the library access form', () => {
  it('drops libraries deleted since, once the library list is known', () => {
    const saved = { mode: 'ALLOW_LIST' as const, libraryIds: [A, GONE] };
    expect(libraryAccessValuesFrom(saved, [A, B])).toEqual({ mode: 'ALLOW_LIST', libraryIds: [A] });
    // Without the list (no library permission) nothing can be told apart: every id stays.
    expect(libraryAccessValuesFrom(saved, null)).toEqual(saved);
  });

  it('sends the list only with ALLOW_LIST, each id once', () => {
    expect(toLibraryAccessBody({ mode: 'ALL', libraryIds: [A] })).toEqual({ mode: 'ALL', libraryIds: [] });
    expect(toLibraryAccessBody({ mode: 'ALLOW_LIST', libraryIds: [A, ` ${A} `, B, ''] })).toEqual({
      mode: 'ALLOW_LIST',
      libraryIds: [A, B],
    });
  });

  it('shows a typed id that is no library id on the list', () => {
    const validate = zodValidate(libraryAccessSchema, toLibraryAccessBody);
    const values = { mode: 'ALLOW_LIST' as const, libraryIds: [A, 'not-an-id'] };
    expect(Object.keys(libraryAccessFormErrors(validate(values)))).toEqual(['libraryIds']);
    expect(libraryAccessFormErrors(validate({ mode: 'ALLOW_LIST', libraryIds: [A] }))).toEqual({});
  });
});
