// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { loginRequestSchema, setupAdminRequestSchema } from '@svc/contracts';
import { setLanguage } from '../i18n/i18n.js';
import { zodValidate } from './zod-form.js';

describe('zodValidate: the server’s schema as a form validator', () => {
  it('passes valid values and reports each failing field once, by its path', () => {
    const validate = zodValidate(setupAdminRequestSchema);
    expect(validate({ username: 'root', password: 'long enough 1' })).toEqual({});
    const errors = validate({ username: 'bad name!', password: 'short' });
    expect(Object.keys(errors).sort()).toEqual(['password', 'username']);
  });

  it('says "Required" for an empty required text, in the interface language', () => {
    const validate = zodValidate(loginRequestSchema, (values: { username: string; password: string }) => ({
      ...values,
      client: 'console',
    }));
    setLanguage('en');
    expect(validate({ username: '', password: 'x' })).toEqual({ username: 'Required' });
    setLanguage('zh');
    expect(validate({ username: '', password: 'x' })).toEqual({ username: '必填' });
    // zod's own messages follow the language too.
    expect(zodValidate(setupAdminRequestSchema)({ username: 'root', password: 'short' }).password).toMatch(
      /[\u4e00-\u9fff]/,
    );
    setLanguage('en');
  });
});
