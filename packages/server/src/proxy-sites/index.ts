export { caddySites } from './caddy-sites.js';
export { nginxSites } from './nginx-sites.js';
export {
  checkProxySites,
  defaultCertificate,
  FORBIDDEN_UPSTREAM_PORTS,
  PROXY_DEFAULTS,
  ProxySiteError,
  type ProxySite,
  type ProxySitesOptions,
  type ProxyTopology,
} from './site-options.js';
