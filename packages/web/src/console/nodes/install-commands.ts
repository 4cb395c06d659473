import {
  endpoints,
  INSTALL_KINDS,
  type InstallCommand,
  type InstallKind,
  type NodeCredentials,
  type NodeView,
} from '@svc/contracts';
import { endpointPathText } from '../../api/endpoint-client.js';

/** What stands for the config service's address before the full command was fetched. */
export const CONFIG_URL_PLACEHOLDER = '<config-url>';

/** Kinds that have a `?ffmpeg=true` variant (play-agents only). */
const FFMPEG_KINDS: ReadonlySet<InstallKind> = new Set([
  'binary',
  'docker',
  'upgrade-binary',
  'upgrade-docker',
]);

/**
 * The install command kinds a node has, in the server's order: none for built-in nodes and manual
 * addresses; `binary-jdk` for storage nodes only.
 */
export function installKindsFor(node: Pick<NodeView, 'serviceType' | 'scope'>): InstallKind[] {
  if (node.scope === 'EMBEDDED' || node.serviceType === 'manual-play-agent-endpoint') return [];
  return INSTALL_KINDS.filter((kind) => kind !== 'binary-jdk' || node.serviceType === 'svc-control-storage');
}

/** Whether the ffmpeg switch applies to this node (play-agents) and to this kind. */
export function hasFfmpegVariant(serviceType: NodeView['serviceType'], kind: InstallKind): boolean {
  return serviceType === 'svc-play-agent' && FFMPEG_KINDS.has(kind);
}

/** `svc_nt_…abcd`: the token's prefix, an ellipsis and its last four characters (as the server masks). */
export function maskToken(token: string): string {
  const prefix = /^[a-z]+_[a-z]+_/.exec(token)?.[0] ?? '';
  return `${prefix}…${token.slice(-4)}`;
}

/** The command line of one kind, as the server builds it (the `?ffmpeg=true` URL is quoted for the shell). */
export function buildInstallCommand(
  configUrl: string,
  nodeToken: string,
  kind: InstallKind,
  ffmpeg: boolean,
): string {
  const url = configUrl + endpointPathText(endpoints.config.getInstallScript, { token: nodeToken, kind });
  return ffmpeg ? `curl -fsSL '${url}?ffmpeg=true' | bash` : `curl -fsSL ${url} | bash`;
}

/** Every occurrence of each secret in `text` replaced by its masked form. */
export function maskSecretsIn(text: string, secrets: readonly (string | null | undefined)[]): string {
  let masked = text;
  for (const secret of secrets) {
    if (secret) masked = masked.split(secret).join(maskToken(secret));
  }
  return masked;
}

/** One line of the install card: what is shown, and what the copy button copies (only once revealed). */
export interface CommandLine {
  kind: InstallKind;
  ffmpeg: boolean;
  /** The text on screen: masked unless revealed. */
  display: string;
  /** The full command to copy; null while it has not been fetched or is hidden. */
  copyValue: string | null;
}

export interface CommandLinesInput {
  node: Pick<NodeView, 'serviceType' | 'scope' | 'tokens'>;
  /** The answer of "show full command", when it was fetched. */
  credentials: Pick<NodeCredentials, 'installCommands' | 'nodeToken' | 'registryToken'> | null;
  /** Show the full commands (needs `credentials`). */
  revealed: boolean;
  /** The `?ffmpeg=true` variants where a kind has one. */
  ffmpeg: boolean;
}

/**
 * The command lines of the install card, one per kind. Before "show full command" they are built
 * locally from the masked node token and a placeholder address, so no secret reaches the page until
 * the administrator asks; once fetched, hiding masks the token inside the real commands again.
 */
export function commandLines({ node, credentials, revealed, ffmpeg }: CommandLinesInput): CommandLine[] {
  return installKindsFor(node).map((kind) => {
    const variant = ffmpeg && hasFfmpegVariant(node.serviceType, kind);
    const fetched = credentials ? pickCommand(credentials.installCommands, kind, variant) : undefined;
    if (fetched && credentials) {
      const secrets = [credentials.nodeToken, credentials.registryToken];
      return {
        kind,
        ffmpeg: fetched.ffmpeg,
        display: revealed ? fetched.command : maskSecretsIn(fetched.command, secrets),
        copyValue: revealed ? fetched.command : null,
      };
    }
    const maskedToken = node.tokens.nodeToken ?? 'svc_nt_…';
    return {
      kind,
      ffmpeg: variant,
      display: buildInstallCommand(CONFIG_URL_PLACEHOLDER, maskedToken, kind, variant),
      copyValue: null,
    };
  });
}

/** The command of a kind: the ffmpeg variant when asked for and offered, else the plain one. */
export function pickCommand(
  commands: readonly InstallCommand[],
  kind: InstallKind,
  ffmpeg: boolean,
): InstallCommand | undefined {
  const plain = commands.find((command) => command.kind === kind && !command.ffmpeg);
  if (!ffmpeg) return plain;
  return commands.find((command) => command.kind === kind && command.ffmpeg) ?? plain;
}
