import { type InstallKind, isInstallKind, kindAllowed } from './install-kinds.js';
import type { InstallRepository, InstallTarget } from './install.repository.js';
import type { NodeImages } from './node-image-settings.service.js';
import { generateNodeScript } from './script-generator.js';

export interface NodeInstallOptions {
  /** The config service's address as nodes reach it (the `{config_url}` of the install commands). */
  configUrl: string;
  /** Delivered to worker nodes by first installs (docs/node-install.md, "Credentials"). */
  serviceToken: string;
  /** The images the container kinds name, read per script (the console setting, else the environment). */
  images: () => Promise<NodeImages>;
  version: string;
}

/** The outcome of a script request: a script, or the one answer every invalid request gets. */
export type ScriptAnswer = { kind: 'script'; script: string } | { kind: 'invalid' };

/** The playback URL of a worker node's external address (protocol default ports are left out). */
export function externalUrl(node: InstallTarget): string | null {
  if (!node.externalProtocol || !node.externalHost) return null;
  const port = node.externalPort;
  const defaultPort = node.externalProtocol === 'https' ? 443 : 80;
  return `${node.externalProtocol}://${node.externalHost}${port === null || port === defaultPort ? '' : `:${port}`}`;
}

/**
 * Install scripts (GET /api/config/nodes/install/{token}/{kind}). A request is invalid, and answered alike,
 * when the token names no worker node, the node is built in (EMBEDDED: run by the standalone supervisor,
 * never installed, upgraded or uninstalled on its own), the kind is unknown or not offered for the node's
 * type (binary-jdk is for storage nodes), or the node is disabled and the kind is not `uninstall`.
 */
export class NodeInstallService {
  constructor(
    private readonly nodes: InstallRepository,
    private readonly options: NodeInstallOptions,
  ) {}

  async script(token: string, kind: string, ffmpeg: boolean): Promise<ScriptAnswer> {
    if (!isInstallKind(kind)) return { kind: 'invalid' };
    const node = await this.nodes.findByNodeToken(token);
    if (!node || !this.offers(node, kind)) return { kind: 'invalid' };
    const withFfmpeg = ffmpeg && node.serviceType === 'svc-play-agent';
    const images = await this.options.images();
    const script = generateNodeScript({
      kind,
      node: {
        nodeId: node.nodeId,
        name: node.name,
        serviceType: node.serviceType,
        nodeToken: node.nodeToken,
        registryToken: node.registryToken,
        listenPort: node.listenPort,
        expectedHost: node.expectedHost,
        expectedPort: node.expectedPort,
        publicBaseUrl: externalUrl(node),
      },
      configBaseUrl: this.options.configUrl,
      serviceToken: this.options.serviceToken,
      ffmpeg: withFfmpeg,
      image: withFfmpeg ? images.imageFfmpeg : images.image,
      version: this.options.version,
    });
    return { kind: 'script', script };
  }

  private offers(node: InstallTarget, kind: InstallKind): boolean {
    if (node.scope === 'EMBEDDED') return false;
    if (node.disabled && kind !== 'uninstall') return false;
    return kindAllowed(kind, node.serviceType);
  }
}
