import { AUDIT_ACTIONS } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { auditMessages } from './audit-messages.js';

describe('audit page wording', () => {
  it('has the same keys in both languages and a name for every family of actions', () => {
    const families = [...new Set(AUDIT_ACTIONS.map((action) => action.split('.')[0]!))].sort();
    for (const language of ['en', 'zh'] as const) {
      const messages = auditMessages[language];
      expect(Object.keys(messages).sort()).toEqual(Object.keys(auditMessages.en).sort());
      expect(Object.keys(messages.family).sort()).toEqual(families);
      for (const text of Object.values(messages.family)) expect(text).toMatch(/\S/);
    }
  });
});
