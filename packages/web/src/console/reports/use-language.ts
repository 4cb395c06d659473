import { useTranslation } from 'react-i18next';
import type { Language } from './report-format.js';

/** The interface language, re-rendering the caller when it changes. */
export function useLanguage(): Language {
  const { i18n } = useTranslation();
  return i18n.language === 'zh' ? 'zh' : 'en';
}
