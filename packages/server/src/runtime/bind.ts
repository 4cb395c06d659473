import type { ComponentName } from '@svc/contracts';
import type { RuntimeContext } from './component.js';

const LOOPBACK = '127.0.0.1';

/**
 * Where each listener binds. Standalone exposes only the console entrance and the play-agent;
 * the internal port stays on loopback in every topology.
 */
export function bindHostFor(context: RuntimeContext, component: ComponentName): string {
  const { settings, topology } = context;
  if (component === 'internal') return LOOPBACK;
  if (component === 'play-agent') return settings.playAgent.listenHost;
  if (topology === 'standalone') return component === 'frontend' ? settings.bindHost : LOOPBACK;
  return settings.bindHost;
}

/** The base URL other processes use to reach a listener of this process. */
export function advertisedUrl(context: RuntimeContext, port: number): string {
  const host = context.topology === 'standalone' ? LOOPBACK : context.settings.advertiseHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
