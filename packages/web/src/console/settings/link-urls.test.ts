import { describe, expect, it } from 'vitest';
import { inboundWebhookUrl, mcpUrl } from './link-urls.js';

describe('addresses shown on the settings page', () => {
  it('builds the MCP and inbound webhook addresses from the origin', () => {
    expect(mcpUrl('https://media.example.com')).toBe('https://media.example.com/mcp');
    expect(mcpUrl('http://127.0.0.1:18080/')).toBe('http://127.0.0.1:18080/mcp');
    expect(inboundWebhookUrl('http://127.0.0.1:18080', 'whk_abc123')).toBe(
      'http://127.0.0.1:18080/api/webhook/whk_abc123',
    );
    expect(inboundWebhookUrl('https://m.example', 'a/b c')).toBe('https://m.example/api/webhook/a%2Fb%20c');
  });
});
