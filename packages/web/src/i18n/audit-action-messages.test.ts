import { AUDIT_ACTIONS } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { auditActionMessages } from './audit-action-messages.js';

describe('audit action names', () => {
  it('names every action of the contracts list in English and Chinese', () => {
    for (const language of ['en', 'zh'] as const) {
      const texts = auditActionMessages[language] as Record<string, Record<string, string>>;
      for (const action of AUDIT_ACTIONS) {
        const [family, name] = action.split('.') as [string, string];
        expect(texts[family]?.[name], `${language} ${action}`).toMatch(/\S/);
      }
      const named = Object.entries(texts).flatMap(([family, names]) =>
        Object.keys(names).map((name) => `${family}.${name}`),
      );
      expect(named.sort()).toEqual([...AUDIT_ACTIONS].sort());
    }
  });
});
