import type { AuditAction } from '@svc/contracts';
import type { Messages } from './i18n.js';

type Family<A extends string> = A extends `${infer F}.${string}` ? F : never;
type Name<A extends string, F extends string> = A extends `${F}.${infer N}` ? N : never;
/** One text per audit action, nested by family so `t('setup.admin')` finds it. */
type ActionTexts = { [F in Family<AuditAction>]: Record<Name<AuditAction, F>, string> };

/** The names of the audit log's actions (docs/audit.md) in both languages: namespace `auditActions`. */
export const auditActionMessages: Messages<ActionTexts> = {
  en: {
    setup: { admin: 'First administrator set up' },
    auth: { 'login-failed': 'Sign-in failed', 'login-locked': 'Sign-in locked' },
    user: {
      create: 'User created',
      update: 'User edited',
      'password-reset': 'Password reset',
      delete: 'User deleted',
      permissions: 'Permissions changed',
      'node-access': 'Node access changed',
      'library-access': 'Library access changed',
      quotas: 'Traffic quotas changed',
    },
    settings: {
      branding: 'System name changed',
      'branding-logo': 'Logo changed',
      'web-player': 'Web playback switched',
      'default-quota-policy': 'Default traffic quota changed',
      'default-node-access-policy': 'Default node access changed',
      'default-library-access-policy': 'Default library access changed',
      'activity-log-retention': 'Activity log retention changed',
      'play-agent-policy': 'Playback policy changed',
      protocol: 'Protocol server information changed',
      'metadata-provider': 'Metadata provider changed',
      'inbound-webhook-token': 'Inbound webhook token regenerated',
      mcp: 'MCP switched',
      'node-image': 'Worker container image changed',
    },
    license: { activate: 'Licence activated', 'edition-upgrade': 'Edition upgraded' },
    mount: { create: 'Mount created', update: 'Mount edited', delete: 'Mount deleted' },
    file: {
      delete: 'File deleted',
      'upload-overwrite': 'File overwritten by an upload',
      'transfer-overwrite': 'File overwritten by a copy or move',
    },
    library: {
      create: 'Library created',
      update: 'Library edited',
      delete: 'Library deleted',
      'scan-start': 'Library scan started',
    },
    node: {
      create: 'Node created',
      update: 'Node edited',
      'external-address': 'External address changed',
      'credentials-reveal': 'Node tokens shown',
      'endpoint-token-regenerate': 'Endpoint token regenerated',
      upgrade: 'Node upgrade sent',
      uninstall: 'Node uninstall sent',
      delete: 'Node deleted',
      'legacy-promote': 'Legacy nodes promoted',
    },
    webhook: {
      create: 'Webhook created',
      update: 'Webhook edited',
      delete: 'Webhook deleted',
      test: 'Webhook test sent',
    },
  },
  zh: {
    setup: { admin: '初始化管理员' },
    auth: { 'login-failed': '登录失败', 'login-locked': '登录被锁定' },
    user: {
      create: '创建用户',
      update: '编辑用户',
      'password-reset': '重置密码',
      delete: '删除用户',
      permissions: '修改权限',
      'node-access': '修改节点访问',
      'library-access': '修改媒体库访问',
      quotas: '修改流量配额',
    },
    settings: {
      branding: '修改系统名称',
      'branding-logo': '修改 Logo',
      'web-player': '切换网页播放',
      'default-quota-policy': '修改默认流量配额',
      'default-node-access-policy': '修改默认节点访问',
      'default-library-access-policy': '修改默认媒体库访问',
      'activity-log-retention': '修改活动日志保留期',
      'play-agent-policy': '修改播放策略',
      protocol: '修改协议服务器信息',
      'metadata-provider': '修改元数据提供方',
      'inbound-webhook-token': '重新生成入站 Webhook 令牌',
      mcp: '切换 MCP',
      'node-image': '修改工作节点容器镜像',
    },
    license: { activate: '激活许可证', 'edition-upgrade': '升级版本' },
    mount: { create: '创建挂载', update: '编辑挂载', delete: '删除挂载' },
    file: {
      delete: '删除文件',
      'upload-overwrite': '上传覆盖文件',
      'transfer-overwrite': '复制或移动覆盖文件',
    },
    library: {
      create: '创建媒体库',
      update: '编辑媒体库',
      delete: '删除媒体库',
      'scan-start': '开始扫描媒体库',
    },
    node: {
      create: '创建节点',
      update: '编辑节点',
      'external-address': '修改外部地址',
      'credentials-reveal': '查看节点令牌',
      'endpoint-token-regenerate': '重新生成入口令牌',
      upgrade: '发送节点升级',
      uninstall: '发送节点卸载',
      delete: '删除节点',
      'legacy-promote': '提升旧节点',
    },
    webhook: {
      create: '创建 Webhook',
      update: '编辑 Webhook',
      delete: '删除 Webhook',
      test: '发送 Webhook 测试',
    },
  },
};
