import type { NodeCredentials, NodeView } from '@svc/contracts';
import { AppError } from '../../../platform/http/errors.js';
import {
  caddySites,
  defaultCertificate,
  nginxSites,
  PROXY_DEFAULTS,
  ProxySiteError,
  type ProxyTopology,
} from '../../../proxy-sites/index.js';

export interface SnippetRequest {
  server: 'nginx' | 'caddy';
  consoleName: string;
  topology: ProxyTopology;
  playAgentHost?: string | undefined;
}

/**
 * The proxy sites of a manual address with its real endpoint token, from the same generator as `svc proxy`
 * (docs/reverse-proxy.md).
 */
export class DiagnosticsService {
  constructor(
    private readonly nodes: {
      get(nodeId: string): Promise<NodeView>;
      credentials(nodeId: string): Promise<NodeCredentials>;
    },
  ) {}

  async snippet(
    nodeId: string,
    request: SnippetRequest,
  ): Promise<{ server: 'nginx' | 'caddy'; text: string }> {
    const node = await this.nodes.get(nodeId);
    const domain = node.externalAddress?.host;
    // The view masks tokens; the snippet carries the real one, like "show full command".
    const token =
      node.serviceType === 'manual-play-agent-endpoint'
        ? (await this.nodes.credentials(nodeId)).endpointToken
        : null;
    if (node.serviceType !== 'manual-play-agent-endpoint' || !domain || !token)
      throw new AppError(400, 'BAD_REQUEST', 'proxy sites are made for manual reverse-proxy addresses');
    const playAgentHost = request.topology === 'standalone' ? '127.0.0.1' : request.playAgentHost;
    if (!playAgentHost)
      throw new AppError(400, 'BAD_REQUEST', 'a distributed playback site needs the play-agent host');
    const options = {
      topology: request.topology,
      console: {
        serverName: request.consoleName,
        ...defaultCertificate(request.consoleName),
        upstream: PROXY_DEFAULTS.consoleUpstream,
      },
      playback: {
        serverName: domain,
        ...defaultCertificate(domain),
        upstream: `${playAgentHost}:${PROXY_DEFAULTS.playAgentPort}`,
        endpointToken: token,
      },
      httpsPort: PROXY_DEFAULTS.httpsPort,
      httpPort: PROXY_DEFAULTS.httpPort,
      listenAddress: '',
      consoleTimeoutSeconds: PROXY_DEFAULTS.consoleTimeoutSeconds,
      playbackTimeoutSeconds: PROXY_DEFAULTS.playbackTimeoutSeconds,
    };
    try {
      return {
        server: request.server,
        text: request.server === 'nginx' ? nginxSites(options) : caddySites(options),
      };
    } catch (error) {
      if (error instanceof ProxySiteError) throw new AppError(400, 'BAD_REQUEST', error.message);
      throw error;
    }
  }
}
