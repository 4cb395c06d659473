import { z } from 'zod';
import { auditActionSchema } from '@svc/contracts';
import type { ApiCall } from './upstream-call.js';

/** One MCP tool: a console action expressed as a call of the public API (its rule decides who may). */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  call: (args: Record<string, unknown>) => ApiCall;
  /** Changes something (MCP clients may ask for confirmation). */
  changes?: boolean;
}

const id = (name: string) => z.string().min(1).max(200).describe(name);
const page = {
  page: z.number().int().min(1).optional(),
  pageSize: z.number().int().min(1).max(100).optional(),
};
const text = (args: Record<string, unknown>, key: string) => encodeURIComponent(String(args[key]));
/** The paging query of a list tool, from the arguments its `page` input takes. */
const pageQuery = (args: Record<string, unknown>) => ({
  page: args.page as number | undefined,
  pageSize: args.pageSize as number | undefined,
});

/** What an administrator does in the console, for assistants. Caches come with their pages later. */
export const MCP_TOOLS: McpTool[] = [
  {
    name: 'dashboard_health',
    title: 'Service and node health',
    description: 'Running services and nodes with their state (needs the dashboard permission).',
    input: {},
    call: () => ({ method: 'GET', path: '/api/config/dashboard/health' }),
  },
  {
    name: 'active_sessions',
    title: 'Active playback sessions',
    description: 'Who is playing what right now (needs the dashboard permission).',
    input: {},
    call: () => ({ method: 'GET', path: '/api/auth/admin/dashboard/sessions' }),
  },
  {
    name: 'list_nodes',
    title: 'List nodes',
    description:
      'Storage nodes, play-agents and manual addresses with state and last heartbeat (permission node).',
    input: {},
    call: () => ({ method: 'GET', path: '/api/config/nodes' }),
  },
  {
    name: 'get_node',
    title: 'Show a node',
    description: 'One node record (permission node).',
    input: { nodeId: id('node id, e.g. node-local-play-agent') },
    call: (args) => ({ method: 'GET', path: `/api/config/nodes/${text(args, 'nodeId')}` }),
  },
  {
    name: 'list_users',
    title: 'List users',
    description: 'Accounts, with optional search and paging (permission user).',
    input: { search: z.string().max(64).optional(), ...page },
    call: (args) => ({
      method: 'GET',
      path: '/api/auth/admin/users',
      query: {
        search: args.search as string | undefined,
        ...pageQuery(args),
      },
    }),
  },
  {
    name: 'get_user',
    title: 'Show a user',
    description: 'One account with permissions, node access and quotas (permission user).',
    input: { userId: id('user id (UUID)') },
    call: (args) => ({ method: 'GET', path: `/api/auth/admin/users/${text(args, 'userId')}` }),
  },
  {
    name: 'set_user_disabled',
    title: 'Disable or enable a user',
    description: 'A disabled account cannot sign in and its tokens stop working (permission user).',
    input: { userId: id('user id (UUID)'), disabled: z.boolean() },
    call: (args) => ({
      method: 'PATCH',
      path: `/api/auth/admin/users/${text(args, 'userId')}`,
      body: { disabled: args.disabled },
    }),
    changes: true,
  },
  {
    name: 'list_libraries',
    title: 'List libraries',
    description: 'Media libraries with their sources (permission library).',
    input: {},
    call: () => ({ method: 'GET', path: '/api/media/libraries' }),
  },
  {
    name: 'scan_library',
    title: 'Scan a library',
    description: 'Starts a scan (incremental by default) (permission library).',
    input: { libraryId: id('library id'), mode: z.enum(['incremental', 'full']).optional() },
    call: (args) => ({
      method: 'POST',
      path: `/api/media/libraries/${text(args, 'libraryId')}/scan`,
      body: { mode: args.mode ?? 'incremental' },
    }),
    changes: true,
  },
  {
    name: 'library_scan_status',
    title: 'Scan progress',
    description: 'The current or last scan of a library (permission library).',
    input: { libraryId: id('library id') },
    call: (args) => ({ method: 'GET', path: `/api/media/libraries/${text(args, 'libraryId')}/scan` }),
  },
  {
    name: 'list_mounts',
    title: 'List storage mounts',
    description: 'Mounts of the storage node (permission storage).',
    input: {},
    call: () => ({ method: 'GET', path: '/api/storage/mounts' }),
  },
  {
    name: 'browse_storage',
    title: 'Browse a folder',
    description: 'Folders and files under a path of a mount (permission storage).',
    input: { mountId: id('mount id'), path: z.string().max(4096).optional().describe('folder, default /') },
    call: (args) => ({
      method: 'GET',
      path: `/api/storage/mounts/${text(args, 'mountId')}/browse`,
      query: { path: (args.path as string | undefined) ?? '/' },
    }),
  },
  {
    name: 'list_transfers',
    title: 'List file transfers',
    description: 'Copies and moves with their progress (permission storage).',
    input: {},
    call: () => ({ method: 'GET', path: '/api/storage/transfers' }),
  },
  {
    name: 'license_status',
    title: 'Licence status',
    description: 'Edition, licence state and node slots.',
    input: {},
    call: () => ({ method: 'GET', path: '/api/license/status' }),
  },
  {
    name: 'audit_log',
    title: 'Audit log',
    description: 'Administrative changes, newest first (permission audit).',
    input: { action: auditActionSchema.optional(), ...page },
    call: (args) => ({
      method: 'GET',
      path: '/api/auth/admin/audit-log',
      query: {
        action: args.action as string | undefined,
        ...pageQuery(args),
      },
    }),
  },
  {
    name: 'get_play_agent_policy',
    title: 'Play-agent policy',
    description: 'Client protocol, response cache and DRIVE_A redirect switch (permission settings).',
    input: {},
    call: () => ({ method: 'GET', path: '/api/config/play-agent/policy' }),
  },
];
