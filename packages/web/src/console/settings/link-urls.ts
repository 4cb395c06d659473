import { endpoints } from '@svc/contracts';
import { endpointPath } from '../../api/endpoint-client.js';

const withoutTrailingSlash = (origin: string) => origin.replace(/\/+$/, '');

/** The MCP endpoint an AI assistant is given: the console's own origin (the frontend forwards /mcp). */
export function mcpUrl(origin: string): string {
  return withoutTrailingSlash(origin) + endpointPath(endpoints.gateway.postMcp);
}

/** The inbound webhook address with a plain token, reached through the same entrance (port 18080). */
export function inboundWebhookUrl(origin: string, token: string): string {
  return withoutTrailingSlash(origin) + endpointPath(endpoints.media.receiveWebhook, { token });
}
