import { currentLanguage } from '../i18n/i18n.js';

/**
 * The messages the shared contract schemas set themselves (the server answers with them in English, as
 * they are), as a form shows them: in the interface language and without pattern syntax. A message not
 * listed here is shown as the schema wrote it.
 */
const SCHEMA_MESSAGES: Record<string, { en: string; zh: string }> = {
  'letters, digits and . _ - @ only': {
    en: 'Use only letters, digits and . _ - @',
    zh: '只能使用字母、数字和 . _ - @',
  },
  'an http or https address without credentials': {
    en: 'Enter an http or https address without a user name or password in it',
    zh: '请输入 http 或 https 地址，地址中不能带用户名或密码',
  },
  'must be a path inside the mount: no "..", backslashes or NUL': {
    en: 'Enter a path inside the mount, without "..", backslashes or NUL characters',
    zh: '请输入挂载内的路径，不能包含 ".."、反斜杠或 NUL 字符',
  },
  'a node id such as node-local-storage': {
    en: 'Enter a node id such as node-local-storage',
    zh: '请输入节点 ID，例如 node-local-storage',
  },
  'node id must match node-[A-Za-z0-9_-]{3,60}': {
    en: 'Use node- followed by 3 to 60 letters, digits, _ or -',
    zh: '请以 node- 开头，后接 3 到 60 个字母、数字、_ 或 -',
  },
  'host must be a domain name or an IPv4 address': {
    en: 'Enter a domain name or an IPv4 address',
    zh: '请输入域名或 IPv4 地址',
  },
  'a language such as en-US': {
    en: 'Enter a language such as en-US',
    zh: '请输入语言代码，例如 zh-CN',
  },
  'source listed twice': { en: 'This source is listed twice', zh: '该来源重复' },
  'route listed twice': { en: 'This route is listed twice', zh: '该线路重复' },
  'key listed twice': { en: 'This name is listed twice', zh: '该名称重复' },
  'entries are allowed only with ALLOW_LIST': {
    en: 'Routes can be chosen only with "Only the routes chosen below"',
    zh: '只有选择“仅限下方选择的线路”时才能选择线路',
  },
  'must be an HTTP header name': {
    en: 'Enter an HTTP header name such as X-Api-Key (no spaces or colons)',
    zh: '请输入 HTTP 头名称，例如 X-Api-Key（不能有空格或冒号）',
  },
  'is set by the delivery itself (Content-Type comes from contentType)': {
    en: 'This header is set by the delivery itself (Content-Type comes from the content type)',
    zh: '该请求头由投递自动设置（Content-Type 取自内容类型）',
  },
  'nothing to change': { en: 'Change at least one value', zh: '请至少修改一项' },
  'at least one field to change': { en: 'Change at least one value', zh: '请至少修改一项' },
  'name at least one field': { en: 'Change at least one value', zh: '请至少修改一项' },
};

/** The schema's own message for people in the interface language (unlisted ones as written). */
export function schemaMessage(message: string): string {
  return SCHEMA_MESSAGES[message]?.[currentLanguage()] ?? message;
}
