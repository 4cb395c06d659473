export const auditMessages = {
  en: {
    at: 'Time',
    actor: 'Who',
    action: 'Action',
    actionPlaceholder: 'e.g. user.create',
    target: 'Target',
    clientIp: 'Address',
    details: 'Details',
    pageSize: 'Per page',
    total: '{{count}} records',
  },
  zh: {
    at: '时间',
    actor: '操作者',
    action: '操作',
    actionPlaceholder: '例如 user.create',
    target: '对象',
    clientIp: '地址',
    details: '详情',
    pageSize: '每页',
    total: '共 {{count}} 条',
  },
};
