import { describe, expect, it } from 'vitest';
import { auditChanges, redactSecrets } from '../../src/platform/audit/audit-details.js';
import { auditEntry } from '../../src/platform/audit/audit-client.js';

describe('audit before/after and masking', () => {
  it('lists only the changed fields by dotted path, ignoring updatedAt', () => {
    expect(
      auditChanges(
        { name: 'a', config: { root: '/x', threads: 1 }, updatedAt: '1' },
        { name: 'b', config: { root: '/x', threads: 2 }, updatedAt: '2' },
      ),
    ).toEqual({ before: { name: 'a', 'config.threads': 1 }, after: { name: 'b', 'config.threads': 2 } });
    expect(auditChanges(null, { name: 'new' })).toEqual({ before: null, after: { name: 'new' } });
    expect(auditChanges({ name: 'old' }, null)).toEqual({ before: { name: 'old' }, after: null });
  });

  it('shows that a secret changed, never its value', () => {
    const changes = auditChanges(
      { config: { url: 'https://dav.example', password: 'old-secret' } },
      { config: { url: 'https://dav.example', password: 'new-secret' } },
    );
    expect(changes).toEqual({
      before: { 'config.password': '[redacted]' },
      after: { 'config.password': '[redacted]' },
    });
  });

  it('masks secret keys, sensitive and secret-named items, URL passwords and secret query values', () => {
    const masked = JSON.stringify(
      redactSecrets({
        apiKey: 'k-1',
        nested: { Authorization: 'Bearer b-2', nodeToken: 't-3' },
        headers: [
          { key: 'X-Custom', value: 's-4', sensitive: true },
          { key: 'X-Api-Key', value: 's-5', sensitive: false },
          { key: 'Accept', value: 'text/plain', sensitive: false },
        ],
        url: 'https://user:p-6@hook.example/path?token=q-7&page=2',
      }),
    );
    for (const secret of ['k-1', 'b-2', 't-3', 's-4', 's-5', 'p-6', 'q-7'])
      expect(masked).not.toContain(secret);
    expect(masked).toContain('text/plain');
    expect(masked).toContain('page=2');
  });

  it('builds the entry with the actor and address of the request', () => {
    const entry = auditEntry(
      {
        identity: {
          userId: 'u1',
          username: 'root',
          role: 'admin',
          permissions: [],
          tokenId: 't',
          tokenKind: 'admin',
          clientIp: '203.0.113.5',
        },
        clientIp: '203.0.113.5',
      },
      {
        action: 'settings.mcp',
        target: { type: 'setting', id: 'mcp' },
        before: { enabled: false },
        after: { enabled: true },
      },
    );
    expect(entry).toEqual({
      actor: { userId: 'u1', username: 'root' },
      action: 'settings.mcp',
      targetType: 'setting',
      targetId: 'mcp',
      details: { before: { enabled: false }, after: { enabled: true } },
      clientIp: '203.0.113.5',
    });
  });
});
