import type { FastifyReply, FastifyRequest } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { endpoints, type Identity } from '@svc/contracts';
import type { AppServer } from '../../../platform/http/create-server.js';
import { AppError } from '../../../platform/http/errors.js';
import { serve } from '../../../platform/http/endpoint-route.js';
import type { ClientIpResolver } from '../../../platform/http/client-ip.js';
import { authenticate } from '../gateway-auth.js';
import type { TokenIntrospector } from '../token-introspector.js';
import type { McpSwitch } from './mcp-switch.js';
import { MCP_TOOLS, type McpTool } from './mcp-tools.js';
import type { UpstreamCaller } from './upstream-call.js';

/** Longest tool answer handed to an assistant (larger answers are cut and say so). */
const MAX_TOOL_TEXT = 100_000;

/**
 * The tool's API call with a stand-in for each argument: enough to find its route (method and path
 * pattern) in the gateway route table, whose rule decides who may call it.
 */
function callShape(tool: McpTool) {
  return tool.call(Object.fromEntries(Object.keys(tool.input).map((key) => [key, `:${key}`])));
}

/** A server with only the tools this account may call: those the same route rule lets through. */
function serverFor(identity: Identity, caller: UpstreamCaller, version: string): McpServer {
  const server = new McpServer({ name: 'svc-media', version });
  for (const tool of MCP_TOOLS) {
    const registered = registerTool(server, tool, identity, caller);
    // Registered first, then removed: the SDK answers tools/list only once some tool was registered.
    if (caller.refusal(identity, callShape(tool))) registered.remove();
  }
  return server;
}

function registerTool(server: McpServer, tool: McpTool, identity: Identity, caller: UpstreamCaller) {
  return server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input,
      annotations: { readOnlyHint: !tool.changes },
    },
    async (args: Record<string, unknown>) => {
      try {
        const answer = await caller.call(identity, tool.call(args));
        let text = JSON.stringify(answer.body, null, 2);
        if (text.length > MAX_TOOL_TEXT) text = `${text.slice(0, MAX_TOOL_TEXT)}\n… (cut)`;
        const failed = answer.status >= 400;
        return {
          content: [{ type: 'text' as const, text: failed ? `HTTP ${answer.status}: ${text}` : text }],
          ...(failed ? { isError: true } : {}),
        };
      } catch (error) {
        const status = (error as { statusCode?: number }).statusCode;
        return {
          content: [
            { type: 'text' as const, text: `${status ? `HTTP ${status}: ` : ''}${(error as Error).message}` },
          ],
          isError: true,
        };
      }
    },
  );
}

/**
 * /mcp: Streamable HTTP (stateless: a fresh server per request, no session to keep) for an account
 * signed in with its access token. 404 while the MCP switch is off.
 */
export function registerMcpEndpoint(
  app: AppServer,
  deps: {
    mcpSwitch: McpSwitch;
    introspector: TokenIntrospector;
    clientIps: ClientIpResolver;
    caller: UpstreamCaller;
    version: string;
  },
): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await deps.mcpSwitch.enabled())) throw new AppError(404, 'NOT_FOUND', 'MCP is switched off');
    const clientIp = deps.clientIps.of(request);
    const identity = await authenticate({ kind: 'access' }, request, clientIp, deps.introspector);
    if (!identity) throw new AppError(401, 'UNAUTHORIZED', 'sign-in required');
    const server = serverFor(identity, deps.caller, deps.version);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw);
  };
  for (const endpoint of [endpoints.gateway.postMcp, endpoints.gateway.getMcp, endpoints.gateway.deleteMcp]) {
    serve(app, endpoint, handler);
  }
}
