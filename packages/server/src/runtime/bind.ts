import type { ComponentName } from '@svc/contracts';
import type { RuntimeContext } from './component.js';

const LOOPBACK = '127.0.0.1';

/**
 * Where each listener binds. Standalone exposes only the console entrance and the play-agent;
 * the internal port stays on loopback in every topology, and so does the gateway: its only client is the
 * frontend of the same machine (which forwards to 127.0.0.1), so on the edge machine, whose console
 * entrance listens on a public interface, 18086 is still not reachable from outside.
 */
export function bindHostFor(context: RuntimeContext, component: ComponentName): string {
  const { settings, topology } = context;
  if (component === 'internal' || component === 'gateway') return LOOPBACK;
  if (component === 'play-agent') return settings.playAgent.listenHost;
  if (topology === 'standalone') return component === 'frontend' ? settings.bindHost : LOOPBACK;
  return settings.bindHost;
}

/** The base URL other processes use to reach a listener of this process. */
export function advertisedUrl(context: RuntimeContext, port: number): string {
  const host = context.topology === 'standalone' ? LOOPBACK : context.settings.advertiseHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
