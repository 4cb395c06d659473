import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_PROTOCOL_VERSION } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOLS, type McpTool } from '../../src/services/gateway/mcp/mcp-tools.js';
import { installBackends } from '../support/install-backends.js';
import { call, startPlaybackInstall, type PlaybackInstall } from '../support/playback-install.js';
import { waitFor } from '../support/runtime.js';

type ToolText = { content: { type: string; text: string }[]; isError?: boolean };

/** Arguments naming nothing that exists: a permitted call then answers 404, never changes anything. */
const ABSENT: Record<string, unknown> = {
  nodeId: 'no-such-node',
  userId: '00000000-0000-4000-8000-000000000000',
  disabled: true,
  libraryId: 'no-such-library',
  mode: 'incremental',
  mountId: 'no-such-mount',
  path: '/',
};
/** How a call is refused: the SDK knows no such tool for this account, or the route rule says 403. */
const REFUSED = /Tool [a-z_]+ not found|HTTP 403/;
const absentArguments = (tool: McpTool) =>
  Object.fromEntries(Object.keys(tool.input).flatMap((key) => (key in ABSENT ? [[key, ABSENT[key]]] : [])));

/**
 * The MCP endpoint through the console entrance with the official SDK client: off by default (404), on
 * within about 3 s of the switch, tools that act with exactly the account's menu permissions.
 */
describe.each(installBackends())('MCP at /mcp on $label', (backend) => {
  let env: PlaybackInstall;
  const clients: Client[] = [];

  const accessTokenOf = async (username: string, password: string) => {
    const login = await call(env.entrance, 'POST', '/api/auth/login', {
      body: { username, password, client: 'portal' },
    });
    expect(login.status).toBe(200);
    return String(login.body.accessToken);
  };
  const connect = async (token: string) => {
    const client = new Client({ name: 'svc-test-assistant', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${env.entrance}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  };
  const initialize = (token?: string) =>
    call(env.entrance, 'POST', '/mcp', {
      headers: {
        accept: 'application/json, text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: MCP_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: 'curl-like', version: '1' },
        },
      },
    });
  const setSwitch = async (enabled: boolean) => {
    const answer = await env.admin('PUT', '/api/config/system-settings/mcp', { enabled });
    expect(answer.status).toBe(200);
    expect(answer.body.enabled).toBe(enabled);
  };

  beforeAll(async () => {
    env = await startPlaybackInstall(backend.env);
    await env.createUser('plain', 'plain-password-1');
    const librarian = await env.createUser('librarian', 'librarian-password-1');
    expect(
      (await env.admin('PUT', `/api/auth/admin/users/${librarian}/permissions`, { permissions: ['library'] }))
        .status,
    ).toBe(200);
  }, 240_000);
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await env?.stop();
    await backend.cleanup();
  });

  it('is off by default: /mcp answers 404 and the setting says so', async () => {
    expect((await env.admin('GET', '/api/config/system-settings/mcp')).body).toMatchObject({
      enabled: false,
    });
    const token = await accessTokenOf('plain', 'plain-password-1');
    expect((await initialize(token)).status).toBe(404);
  });

  it('answers within about 3 s of switching on, with protocol version 2025-11-25, and only with an access token', async () => {
    const token = await accessTokenOf('plain', 'plain-password-1');
    await setSwitch(true);
    const switchedAt = Date.now();
    const answer = await waitFor(
      async () => {
        const attempt = await initialize(token);
        return attempt.status === 200 ? attempt : undefined;
      },
      5_000,
      100,
    );
    expect(Date.now() - switchedAt).toBeLessThan(3_500);
    expect(answer.body).toMatchObject({
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'svc-media' } },
    });

    expect((await initialize()).status).toBe(401);
    expect((await initialize('svc_acc_not-a-real-token')).status).toBe(401);
    // The console's admin token is not an access token.
    expect((await initialize(env.adminToken)).status).toBe(401);
  });

  it('lists every tool to an administrator and runs them', async () => {
    await setSwitch(true);
    const token = await accessTokenOf('root', 'root-password-1');
    const client = await waitFor(async () => connect(token).catch(() => undefined), 5_000);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOLS.map((tool) => tool.name).sort());
    const libraries = (await client.callTool({ name: 'list_libraries', arguments: {} })) as ToolText;
    expect(libraries.isError).toBeFalsy();
    expect(libraries.content[0]!.text).toContain(env.libraries.movies);
    const nodes = (await client.callTool({ name: 'list_nodes', arguments: {} })) as ToolText;
    expect(nodes.content[0]!.text).toContain('node-local-play-agent');
  });

  it('lists to an account only the tools its permissions allow, and refuses the others', async () => {
    await setSwitch(true);
    const plain = await waitFor(
      async () => connect(await accessTokenOf('plain', 'plain-password-1')).catch(() => undefined),
      5_000,
    );
    expect((await plain.listTools()).tools.map((tool) => tool.name)).toEqual(['license_status']);
    const refused = (await plain.callTool({ name: 'list_libraries', arguments: {} })) as ToolText;
    expect(refused.isError).toBe(true);
    const users = (await plain.callTool({ name: 'list_users', arguments: {} })) as ToolText;
    expect(users.isError).toBe(true);

    const librarian = await connect(await accessTokenOf('librarian', 'librarian-password-1'));
    expect((await librarian.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'library_scan_status',
      'license_status',
      'list_libraries',
      'scan_library',
    ]);
    const allowed = (await librarian.callTool({ name: 'list_libraries', arguments: {} })) as ToolText;
    expect(allowed.isError).toBeFalsy();
    expect(allowed.content[0]!.text).toContain(env.libraries.movies);
    const stillRefused = (await librarian.callTool({ name: 'list_nodes', arguments: {} })) as ToolText;
    expect(stillRefused.isError).toBe(true);
    expect(stillRefused.content[0]!.text).not.toContain('node-local-play-agent');
  });

  it('lists a tool exactly when the console API lets the account make the tool’s call', async () => {
    await setSwitch(true);
    const librarian = await waitFor(
      async () => connect(await accessTokenOf('librarian', 'librarian-password-1')).catch(() => undefined),
      5_000,
    );
    const listed = new Set((await librarian.listTools()).tools.map((tool) => tool.name));
    const console = await call(env.entrance, 'POST', '/api/auth/login', {
      body: { username: 'librarian', password: 'librarian-password-1', client: 'console' },
    });
    expect(console.status).toBe(200);
    const adminToken = String(console.body.adminToken);
    for (const tool of MCP_TOOLS) {
      const args = absentArguments(tool);
      const api = tool.call(args);
      const query = new URLSearchParams(
        Object.entries(api.query ?? {}).flatMap(([key, value]): [string, string][] =>
          value === undefined ? [] : [[key, String(value)]],
        ),
      ).toString();
      const answer = await call(env.entrance, api.method, `${api.path}${query ? `?${query}` : ''}`, {
        headers: { 'x-admin-token': adminToken },
        body: api.body,
      });
      const viaMcp = (await librarian.callTool({ name: tool.name, arguments: args })) as ToolText;
      const permitted = answer.status !== 403;
      expect({ tool: tool.name, listed: listed.has(tool.name) }).toEqual({
        tool: tool.name,
        listed: permitted,
      });
      expect({ tool: tool.name, refusedViaMcp: REFUSED.test(viaMcp.content[0]!.text) }).toEqual({
        tool: tool.name,
        refusedViaMcp: !permitted,
      });
    }
  });

  it('answers 404 again within about 3 s of switching off, without a restart', async () => {
    const token = await accessTokenOf('plain', 'plain-password-1');
    await setSwitch(true);
    await waitFor(async () => ((await initialize(token)).status === 200 ? true : undefined), 5_000, 100);
    await setSwitch(false);
    const switchedAt = Date.now();
    await waitFor(async () => ((await initialize(token)).status === 404 ? true : undefined), 5_000, 100);
    expect(Date.now() - switchedAt).toBeLessThan(3_500);
  });
});
