// @vitest-environment jsdom
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createMountRequestSchema,
  createUserRequestSchema,
  nodeAccessModeSchema,
  portSchema,
  setupAdminRequestSchema,
} from '@svc/contracts';
import { setLanguage, type Language } from '../i18n/i18n.js';
import { zodValidate } from './zod-form.js';

/** The message a form shows for `value` checked with `schema` (the first issue). */
function messageOf(schema: z.ZodType, value: unknown, language: Language): string {
  setLanguage(language);
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected a problem');
  return result.error.issues[0]?.message ?? '';
}

afterAll(() => setLanguage('en'));

describe('validation messages for people, in both languages', () => {
  it('names the limit of a too short or too long text, not zod’s schema wording', () => {
    const setup = zodValidate(setupAdminRequestSchema);
    setLanguage('en');
    expect(setup({ username: 'root', password: 'short' })).toEqual({
      password: 'Enter at least 8 characters',
    });
    expect(setup({ username: 'root', password: 'x'.repeat(300) }).password).toBe(
      'Enter at most 256 characters',
    );
    setLanguage('zh');
    expect(setup({ username: 'root', password: 'short' })).toEqual({ password: '请至少输入 8 个字符' });
    expect(setup({ username: 'root', password: 'x'.repeat(300) }).password).toBe('最多只能输入 256 个字符');
  });

  it('says "Required" for an empty or missing value', () => {
    expect(messageOf(createUserRequestSchema.shape.username, '', 'en')).toBe('Required');
    expect(messageOf(createUserRequestSchema.shape.username, undefined, 'zh')).toBe('必填');
    expect(messageOf(portSchema, '', 'en')).toBe('Required');
  });

  it('names the limits of numbers, whole numbers and lists', () => {
    expect(messageOf(portSchema, 0, 'en')).toBe('Enter 1 or more');
    expect(messageOf(portSchema, 70000, 'en')).toBe('Enter 65,535 or less');
    expect(messageOf(portSchema, 80.5, 'en')).toBe('Enter a whole number');
    expect(messageOf(portSchema, 'eighty', 'en')).toBe('Enter a number');
    expect(messageOf(portSchema, 0, 'zh')).toBe('请输入不小于 1 的数');
    expect(messageOf(portSchema, 80.5, 'zh')).toBe('请输入整数');
    expect(messageOf(z.number().positive(), 0, 'en')).toBe('Enter a number greater than 0');
    expect(messageOf(z.array(z.string()).min(1), [], 'en')).toBe('Add at least one entry');
    expect(messageOf(z.array(z.string()).max(2), ['a', 'b', 'c'], 'zh')).toBe('最多只能添加 2 项');
  });

  it('explains formats: web address, e-mail, a pattern without its own words', () => {
    const webdav = { name: 'nas', provider: 'webdav', config: { url: 'not an address' } };
    setLanguage('en');
    expect(zodValidate(createMountRequestSchema)(webdav)['config.url']).toBe(
      'Enter a web address such as https://example.com',
    );
    setLanguage('zh');
    expect(zodValidate(createMountRequestSchema)(webdav)['config.url']).toBe(
      '请输入网址，例如 https://example.com',
    );
    expect(messageOf(z.email(), 'nobody', 'en')).toBe('Enter an e-mail address such as name@example.com');
    expect(messageOf(z.string().regex(/^a+$/), 'b', 'en')).toBe('This does not have the expected form');
    expect(messageOf(z.string().regex(/^a+$/), 'b', 'zh')).toBe('格式不符合要求');
  });

  it('lists the choices of an enumeration and names an expected constant', () => {
    expect(messageOf(nodeAccessModeSchema, 'SOME', 'en')).toBe('Choose one of “ALL”, “ALLOW_LIST”, “NONE”');
    expect(messageOf(nodeAccessModeSchema, 'SOME', 'zh')).toBe('请从 “ALL”、“ALLOW_LIST”、“NONE” 中选择');
    expect(messageOf(z.literal('yes'), 'no', 'en')).toBe('Must be “yes”');
  });

  it('gives a check without its own words a sentence, and translates the words a schema sets', () => {
    expect(
      messageOf(
        z.string().refine(() => false),
        'x',
        'en',
      ),
    ).toBe('This value is not valid');
    expect(
      messageOf(
        z.string().refine(() => false),
        'x',
        'zh',
      ),
    ).toBe('该值无效');
    const create = zodValidate(createUserRequestSchema);
    setLanguage('en');
    expect(create({ username: 'bad name!', password: 'long enough 1' }).username).toBe(
      'Use only letters, digits and . _ - @',
    );
    setLanguage('zh');
    expect(create({ username: 'bad name!', password: 'long enough 1' }).username).toBe(
      '只能使用字母、数字和 . _ - @',
    );
  });

  it('leaves no message in zod’s own wording for any of these', () => {
    setLanguage('en');
    const problems = zodValidate(createUserRequestSchema)({ username: '', password: 'short', role: 'boss' });
    for (const text of Object.values(problems)) expect(text).not.toMatch(/Too small|expected|Invalid/);
  });
});
