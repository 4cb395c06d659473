import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createServer } from '../../platform/http/create-server.js';
import { allowBrowserClients } from './proto-a/browser-access.js';
import { acceptEmptyJsonBodies } from './proto-a/empty-json-body.js';
import { stripClientPrefix } from './proto-a/dialect.js';
import { loadSettings } from '../../platform/settings.js';
import type { ComponentFactory } from '../../runtime/component.js';
import { PlaybackGate } from './access/playback-gate.js';
import { registerProxyProbeRoutes } from './diagnostics/proxy-probe.routes.js';
import { TokenResolver } from './access/token-resolver.js';
import { PolicyRefresher } from './policy-refresher.js';
import { CacheConfigPuller } from './cache-runtime/cache-config-puller.js';
import { registerNodeCacheRoutes } from './cache-runtime/node-cache.routes.js';
import { NodeCacheRuntime } from './cache-runtime/node-cache-runtime.js';
import { ViewerCounts } from './cache-runtime/viewer-counts.js';
import { registerBrowseRoutes } from './proto-a/browse.routes.js';
import { registerLoginPageRoutes } from './proto-a/login-page.routes.js';
import { registerPlaybackRoutes } from './proto-a/playback.routes.js';
import { ProtocolRoutes, serveUnservedProtocols } from './proto-a/protocol.js';
import { ResponseCache } from './proto-a/response-cache.js';
import { registerStreamRoutes } from './proto-a/stream.routes.js';
import { registerArtworkRoute } from './image-cache/artwork.routes.js';
import { ImageCache } from './image-cache/image-cache.js';
import { StartupProbe } from './metadata-probe/startup-probe.js';
import { registerStartupProbeRoutes } from './metadata-probe/startup-probe.routes.js';
import { DEFAULT_IMAGE_CACHE_CONFIG, DEFAULT_METADATA_PROBE_CONFIG } from '@svc/contracts';
import { storeMediaInfo } from './metadata-probe/media-info-writer.js';
import { MetadataProber } from './metadata-probe/metadata-prober.js';
import { ProbeQueue } from './metadata-probe/probe-queue.js';
import { PlaybackStreamer } from './proto-a/streamer.js';
import { DriveARedirect } from './redirect/drive-a-redirect.js';
import { SubtitleDelivery } from './proto-a/subtitle-delivery.js';
import { SubtitleTool } from './stream/subtitle-tool.js';
import { registerSystemRoutes } from './proto-a/system.routes.js';
import { LocalAddress } from './proto-a/local-address.js';
import { ClientIpResolver } from '../../platform/http/client-ip.js';
import { PublicAddressLookup } from './upstream/public-address-lookup.js';
import { ActivityReporter } from './reporting/activity-reporter.js';
import { PlaySessions } from './reporting/play-sessions.js';
import { UsageMeter } from './reporting/usage-meter.js';
import { ReportSpool } from './reporting/report-spool.js';
import { ConfigClient } from './upstream/config-client.js';
import { registerNodeLifecycleRoutes } from '../shared/node-lifecycle.routes.js';
import { MediaClient } from './upstream/media-client.js';
import { ServiceClient } from '../../platform/http/service-client.js';
import { UserClient } from './upstream/user-client.js';
import { TaskScheduler } from '../../platform/tasks/index.js';
import { CdnManualStore } from './cdn/cdn-manual-store.js';
import { CdnPreference } from './cdn/cdn-preference.js';
import { cdnOptimizeTask } from './cdn/cdn-optimize.task.js';
import { registerCdnRoutes } from './cdn/cdn.routes.js';
import { DohResolver } from './cdn/doh-resolver.js';
import { DriveBLinks } from './cdn/drive-b-links.js';
import { resolvingAgent } from './cdn/pinned-agent.js';
import { MountKinds } from './redirect/mount-kinds.js';

/** The server id players see: the same on every play-agent of an install (derived from its service token). */
export function serverIdOf(serviceToken: string): string {
  return createHash('sha256').update(`svc-server-id:${serviceToken}`).digest('hex').slice(0, 32);
}

/** Play-agent (19090): the playback endpoint players connect to. Streaming never waits on a report. */
export const createPlayAgentComponent: ComponentFactory = async (context) => {
  const { playAgent } = context.settings;
  const logger = context.logger.child({ component: 'play-agent', nodeId: playAgent.nodeId });
  const app = createServer({
    serviceToken: context.serviceToken,
    component: 'play-agent',
    logger,
    // Downloads of large files may take hours; the request timeout only bounds receiving the request.
    requestTimeoutMs: 0,
    caseInsensitiveRoutes: true,
    // The client families' optional path prefixes (/emby, /jellyfin, …; proto-a/dialect.ts).
    rewriteUrl: stripClientPrefix,
  });
  allowBrowserClients(app);
  acceptEmptyJsonBodies(app);
  // Some Emby clients post their sign-in as a form.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  const client = (service: 'svc-user' | 'svc-media' | 'svc-config', fixedBaseUrl?: string) =>
    new ServiceClient({
      service,
      registry: context.registry,
      serviceToken: context.serviceToken,
      ...(fixedBaseUrl ? { fixedBaseUrl } : {}),
    });
  const users = new UserClient(client('svc-user', playAgent.userBaseUrl));
  const media = new MediaClient(client('svc-media', playAgent.mediaBaseUrl));
  const config = new ConfigClient(client('svc-config', playAgent.configBaseUrl));

  const reporter = new ActivityReporter({ users, logger });
  // What a stop cannot deliver waits in the work folder for the next start (docs/activity-log.md).
  const spool = ReportSpool.forNode(
    context.settings.nodeInstall?.workDir ?? context.settings.dataDir,
    playAgent.nodeId,
  );
  const sessions = new PlaySessions({ reporter, nodeId: playAgent.nodeId, now: () => context.clock.now() });
  // The meter tells the gate when a user's recorded use changed; the gate reads the meter's pending bytes.
  const recorded = new Set<(userId: string) => void>();
  const meter = new UsageMeter({
    users,
    nodeId: playAgent.nodeId,
    logger,
    onRecorded: (userId) => recorded.forEach((listener) => listener(userId)),
  });
  const gate = new PlaybackGate({ users, config, meter, nodeId: playAgent.nodeId });
  recorded.add((userId) => gate.forget(userId));
  const cache = new ResponseCache();
  // The video cache (docs/vfs-cache.md): an installed node keeps it in its work directory, the built-in
  // node in SVC_PLAY_AGENT_VFS_CACHE_DIR (below the data folder unless set).
  const workDir = context.settings.nodeInstall?.workDir;
  const caches = new NodeCacheRuntime({
    defaultDirectory: workDir ? path.join(workDir, 'vfs_cache') : playAgent.vfsCacheDir,
    baseDirectory: workDir ?? context.settings.dataDir,
    logger,
  });
  const cacheConfig = new CacheConfigPuller({
    fetch: () => config.cacheConfig(playAgent.nodeId),
    apply: (next) => caches.apply(next),
    logger,
  });
  // DRIVE_B CDN address preference (docs/drives.md): DoH resolvers, measured addresses, the optimize task.
  const cdnTrust = playAgent.cdnCaFile ? { ca: readFileSync(playAgent.cdnCaFile, 'utf8') } : {};
  const cdnResolverAgent = resolvingAgent(cdnTrust);
  const cdn = new CdnPreference({
    nodeId: playAgent.nodeId,
    resolver: new DohResolver({
      resolvers: playAgent.cdnDohUrls,
      dispatcher: cdnResolverAgent,
      allowPrivate: playAgent.cdnAllowPrivateIps,
    }),
    logger,
    ...cdnTrust,
    // Manual addresses survive a restart: a file next to the pending reports (docs/drives.md).
    manualStore: CdnManualStore.forNode(workDir ?? context.settings.dataDir, playAgent.nodeId),
  });
  const tasks = new TaskScheduler({ logger: logger.child({ scheduler: 'play-agent' }) });
  tasks.register(cdnOptimizeTask(cdn));
  context.schedulers.set('play-agent', tasks);
  const viewers = new ViewerCounts(async (itemId) => (await users.mediaViewerCount(itemId)).viewers);
  const streamer = new PlaybackStreamer({
    registry: context.registry,
    serviceToken: context.serviceToken,
    rateBytesPerSecond: playAgent.streamRateBytesPerSecond,
    logger,
    videoCache: caches,
    viewersLastDay: async (itemId) => (caches.needsPopularity ? viewers.lookup(itemId) : null),
    driveB: {
      preference: cdn,
      links: new DriveBLinks(context.serviceToken),
      kinds: new MountKinds(context.serviceToken),
    },
  });
  const subtitles = new SubtitleDelivery({ streamer, tool: new SubtitleTool(), logger });
  const policy = new PolicyRefresher({
    config,
    media,
    cache,
    supported: playAgent.supportedProtocols,
    logger,
    ...(playAgent.policyRefreshMs ? { intervalMs: playAgent.policyRefreshMs } : {}),
  });

  // Without public_base_url the node's public address is its record's external address (spec).
  const publicAddress = playAgent.publicBaseUrl
    ? undefined
    : new PublicAddressLookup({ config, nodeId: playAgent.nodeId, logger });

  // Defaults until the node's cache configuration reaches it (below, `caches.onConfig`; docs/image-cache.md).
  const images = new ImageCache(DEFAULT_IMAGE_CACHE_CONFIG, {
    // The built-in node's volume (SVC_PLAY_AGENT_IMAGE_CACHE_DIR); an installed node's ./image_cache.
    defaultDirectory: context.settings.nodeInstall
      ? path.join(context.settings.nodeInstall.workDir, 'image_cache')
      : playAgent.imageCacheDir,
    logger,
  });

  const startupProbe = new StartupProbe({ nodeId: playAgent.nodeId, logger });

  const prober = new MetadataProber({ open: (file) => streamer.openSource(file), logger });
  const mediaService = client('svc-media', playAgent.mediaBaseUrl);
  const probing = new ProbeQueue(DEFAULT_METADATA_PROBE_CONFIG, {
    probe: async (job, capBytes) => (await prober.probe(job.file, capBytes)).mediaInfo,
    store: async (job, mediaInfo) => {
      await storeMediaInfo(mediaService, job, mediaInfo);
    },
    toolUsable: () => startupProbe.usable(),
    logger,
  });
  // The image cache and the probing follow the node's cache configuration; a flush clears the images too.
  caches.onConfig((next) => {
    images.apply(next.image);
    probing.apply(next.metadataProbe);
    cdn.setEnabled(next.cdn.enabled);
  });
  caches.onFlush('image', () => images.clearAll());

  const redirect = new DriveARedirect({
    switchedOn: () => policy.current().driveARedirect,
    storageUrl: (nodeId) => streamer.storageUrl(nodeId),
    serviceToken: context.serviceToken,
    allowedHosts: playAgent.driveARedirectAllowedHosts,
    userAgent: playAgent.driveARedirectUserAgent,
    now: () => context.clock.now(),
    logger,
  });

  const serverId = serverIdOf(context.serviceToken);
  const routes = new ProtocolRoutes(app, {
    server: () => ({ serverId, ...policy.serverInfo() }),
    freshServer: async () => ({ serverId, ...(await policy.freshServerInfo()) }),
    nodeId: playAgent.nodeId,
    serviceToken: context.serviceToken,
    listenPort: playAgent.listenPort,
    localAddress: new LocalAddress({
      publicBaseUrl: playAgent.publicBaseUrl,
      lookedUp: () => publicAddress?.current(),
      proxies: new ClientIpResolver(context.settings.trustedProxies),
    }),
    enabled: () => policy.serves('proto_a'),
    users,
    media,
    tokens: new TokenResolver(users),
    gate,
    sessions,
    meter,
    streamer,
    redirect,
    subtitles,
    cache,
    logger,
  });
  registerSystemRoutes(routes);
  registerLoginPageRoutes(routes);
  registerBrowseRoutes(routes);
  registerPlaybackRoutes(routes);
  registerStreamRoutes(routes, {
    played: (item) => {
      if (item.file) probing.played({ itemId: item.id, file: item.file });
    },
  });
  registerArtworkRoute(routes, images);
  registerProxyProbeRoutes(app, gate);
  // The announced protocols this node never serves (reached below their own label): 503.
  serveUnservedProtocols(app);
  // The config service pushes cache configurations and forwards the console's entry routes here.
  registerNodeCacheRoutes(app, caches);
  registerStartupProbeRoutes(app, startupProbe);
  registerCdnRoutes(app, cdn);
  // Remote upgrade and uninstall of an installed play-agent (docs/node-install.md): service token only.
  registerNodeLifecycleRoutes(app, {
    install: context.settings.nodeInstall,
    configBaseUrl: playAgent.configBaseUrl,
    dataDir: context.settings.dataDir,
  });

  // SIGHUP re-reads the stream rate (environment and config file) and applies it to the live streams.
  const reloadRate = () => {
    try {
      const rate = loadSettings(process.env).playAgent.streamRateBytesPerSecond;
      streamer.setRate(rate);
      logger.info({ bytesPerSecond: rate }, 'stream rate reloaded');
    } catch (error) {
      logger.error({ err: (error as Error).message }, 'stream rate not reloaded: the settings are not valid');
    }
  };

  return {
    name: 'play-agent',
    app,
    host: playAgent.listenHost,
    port: playAgent.listenPort,
    registration: {
      service: 'svc-play-agent',
      nodeId: playAgent.nodeId,
      registryToken: playAgent.registryToken ?? context.serviceToken,
    },
    start: async () => {
      const spooled = await spool.take().catch((error: unknown) => {
        logger.error({ err: (error as Error).message }, 'pending playback reports could not be read');
        return null;
      });
      if (spooled) {
        reporter.requeue(spooled.events);
        meter.restore(spooled.usage);
        logger.info(
          { events: spooled.events.length, usage: spooled.usage.length },
          'sending playback reports kept from the last stop',
        );
      }
      await cdn.restoreManual().then(
        (hosts) => hosts > 0 && logger.info({ hosts }, 'manual CDN addresses restored'),
        (error: unknown) =>
          logger.error({ err: (error as Error).message }, 'manual CDN addresses could not be read'),
      );
      reporter.start();
      meter.start();
      sessions.start();
      policy.start();
      cacheConfig.start();
      publicAddress?.start();
      images.start();
      void startupProbe.check();
      tasks.start();
      process.on('SIGHUP', reloadRate);
    },
    stop: async () => {
      process.off('SIGHUP', reloadRate);
      policy.stop();
      cacheConfig.stop();
      publicAddress?.stop();
      // The listener is closed and its connections cut: let the streams count their last bytes first.
      await streamer.settled(5_000);
      sessions.close();
      await probing.stop();
      const [events, usage] = await Promise.all([
        reporter.close(),
        meter.close(),
        subtitles.close(),
        images.stop(),
        prober.close(),
      ]);
      if (events.length > 0 || usage.length > 0) {
        await spool
          .save({ events, usage })
          .then(() =>
            logger.warn(
              { events: events.length, usage: usage.length, file: spool.path },
              'the user service did not take every playback report before the stop; they are kept and sent at the next start',
            ),
          )
          .catch((error: unknown) =>
            logger.error(
              { err: (error as Error).message, lost: events.length, usage: usage.length },
              'activity events could not be written before exit',
            ),
          );
      }
      await caches.stop();
      await tasks.stop();
      await Promise.allSettled([cdn.close(), cdnResolverAgent.close()]);
    },
  };
};
