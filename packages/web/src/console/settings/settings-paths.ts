/** Endpoints of the system configuration page (each card saves through its own). */
export const ADMIN_BRANDING_PATH = '/api/auth/admin/branding';
export const LOGO_PATH = '/api/auth/admin/branding/logo';
export const WEB_PLAYER_PATH = '/api/auth/admin/branding/web-player';
export const IMAGE_UPLOAD_PATH = '/api/config/uploads/image';
export const DEFAULT_QUOTA_PATH = '/api/auth/admin/traffic-quotas/default-policy';
export const NODE_ACCESS_POLICY_PATH = '/api/auth/admin/node-access-policy';
export const LIBRARY_ACCESS_POLICY_PATH = '/api/auth/admin/library-access-policy';
export const PLAY_AGENT_POLICY_PATH = '/api/config/play-agent/policy';
export const PROTOCOL_INFO_PATH = '/api/media/protocol/proto_a/settings';
export const MCP_PATH = '/api/config/system-settings/mcp';
export const WEBHOOK_TOKEN_PATH = '/api/media/webhook/token';
