/** The MCP endpoint an AI assistant is given: the console's own origin (the frontend forwards /mcp). */
export function mcpUrl(origin: string): string {
  return `${origin.replace(/\/+$/, '')}/mcp`;
}

/** The inbound webhook address with a plain token, reached through the same entrance (port 18080). */
export function inboundWebhookUrl(origin: string, token: string): string {
  return `${origin.replace(/\/+$/, '')}/api/webhook/${encodeURIComponent(token)}`;
}
