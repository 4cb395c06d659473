import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { z } from 'zod';
import { commonMessages } from './common-messages.js';
import { errorMessages } from './error-messages.js';
import { readableIssue } from '../forms/readable-issue.js';

export const LANGUAGES = ['en', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];

const LANGUAGE_KEY = 'svc.language';

/** A page's messages in both languages; the Chinese ones must have the same keys. */
export interface Messages<T extends Record<string, unknown> = Record<string, unknown>> {
  en: T;
  zh: T;
}

function initialLanguage(): Language {
  // Outside a browser (unit tests of modules that use the wording) there is no stored choice.
  const stored = typeof localStorage === 'undefined' ? null : localStorage.getItem(LANGUAGE_KEY);
  if (stored === 'en' || stored === 'zh') return stored;
  const browser = typeof navigator === 'undefined' ? '' : navigator.language.toLowerCase();
  return browser.startsWith('zh') ? 'zh' : 'en';
}

void i18next.use(initReactI18next).init({
  lng: initialLanguage(),
  fallbackLng: 'en',
  defaultNS: 'common',
  ns: ['common', 'errors'],
  resources: {
    en: { common: commonMessages.en, errors: errorMessages.en },
    zh: { common: commonMessages.zh, errors: errorMessages.zh },
  },
  interpolation: { escapeValue: false },
  returnNull: false,
});
applyLanguage(i18next.language === 'zh' ? 'zh' : 'en');

// Form messages of the shared zod schemas are sentences for people in the interface language.
z.config({ customError: readableIssue });

function applyLanguage(language: Language): void {
  if (typeof document !== 'undefined') document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en';
}

/** Adds a page's namespace when its module loads (pages are loaded on demand). */
export function registerMessages(namespace: string, messages: Messages): void {
  if (i18next.hasResourceBundle('en', namespace)) return;
  i18next.addResourceBundle('en', namespace, messages.en);
  i18next.addResourceBundle('zh', namespace, messages.zh);
}

export function setLanguage(language: Language): void {
  if (typeof localStorage !== 'undefined') localStorage.setItem(LANGUAGE_KEY, language);
  applyLanguage(language);
  void i18next.changeLanguage(language);
}

export function currentLanguage(): Language {
  return i18next.language === 'zh' ? 'zh' : 'en';
}

export { i18next };
