import { z } from 'zod';

/**
 * Every action the audit log records, grouped by family (docs/audit.md lists what each one holds). A new
 * kind of administrative change gets its name here first: the user service refuses any other name.
 */
export const AUDIT_ACTIONS = [
  // First run and sign-in (recorded by the user service itself).
  'setup.admin',
  'auth.login-failed',
  'auth.login-locked',
  // Accounts.
  'user.create',
  'user.update',
  'user.password-reset',
  'user.delete',
  'user.permissions',
  'user.node-access',
  'user.library-access',
  'user.quotas',
  // System settings, in whichever service keeps them.
  'settings.branding',
  'settings.branding-logo',
  'settings.web-player',
  'settings.default-quota-policy',
  'settings.default-node-access-policy',
  'settings.default-library-access-policy',
  'settings.activity-log-retention',
  'settings.play-agent-policy',
  'settings.protocol',
  'settings.metadata-provider',
  'settings.inbound-webhook-token',
  'settings.mcp',
  'settings.node-image',
  // Licence and edition.
  'license.activate',
  'license.edition-upgrade',
  // Storage: mounts, and file operations that delete or overwrite.
  'mount.create',
  'mount.update',
  'mount.delete',
  'drive-account.create',
  'drive-account.update',
  'drive-account.delete',
  'file.delete',
  'file.upload-overwrite',
  'file.transfer-overwrite',
  // Libraries.
  'library.create',
  'library.update',
  'library.delete',
  'library.scan-start',
  // Nodes.
  'node.create',
  'node.update',
  'node.external-address',
  'node.credentials-reveal',
  'node.endpoint-token-regenerate',
  'node.upgrade',
  'node.uninstall',
  'node.delete',
  'node.legacy-promote',
  // Outbound webhook endpoints.
  'webhook.create',
  'webhook.update',
  'webhook.delete',
  'webhook.test',
] as const;

export const auditActionSchema = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof auditActionSchema>;

/** What a value that must never enter the log is replaced with (at any depth of the details). */
export const AUDIT_REDACTED = '[redacted]';
