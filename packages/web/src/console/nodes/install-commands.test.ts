import { describe, expect, it } from 'vitest';
import type { InstallCommand } from '@svc/contracts';
import {
  buildInstallCommand,
  commandLines,
  hasFfmpegVariant,
  installKindsFor,
  maskSecretsIn,
  maskToken,
  pickCommand,
} from './install-commands.js';

const NODE_TOKEN = 'svc_nt_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdWXYZ';
const REGISTRY_TOKEN = 'svc_rt_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210_-zyx1234';
const CONFIG_URL = 'http://10.0.0.5:18085';

function commandsFor(
  kinds: InstallCommand['kind'][],
  ffmpegKinds: InstallCommand['kind'][] = [],
): InstallCommand[] {
  return [
    ...kinds.map((kind) => ({
      kind,
      ffmpeg: false,
      command: buildInstallCommand(CONFIG_URL, NODE_TOKEN, kind, false),
    })),
    ...ffmpegKinds.map((kind) => ({
      kind,
      ffmpeg: true,
      command: buildInstallCommand(CONFIG_URL, NODE_TOKEN, kind, true),
    })),
  ];
}

const playAgent = {
  serviceType: 'svc-play-agent' as const,
  scope: 'EXTERNAL' as const,
  tokens: { nodeToken: maskToken(NODE_TOKEN), registryToken: maskToken(REGISTRY_TOKEN), endpointToken: null },
};

describe('install kinds', () => {
  it('gives storage nodes all six kinds and play-agents all but binary-jdk', () => {
    expect(installKindsFor({ serviceType: 'svc-control-storage', scope: 'EXTERNAL' })).toEqual([
      'binary',
      'binary-jdk',
      'docker',
      'uninstall',
      'upgrade-binary',
      'upgrade-docker',
    ]);
    expect(installKindsFor(playAgent)).toEqual([
      'binary',
      'docker',
      'uninstall',
      'upgrade-binary',
      'upgrade-docker',
    ]);
  });

  it('gives built-in nodes and manual addresses none', () => {
    expect(installKindsFor({ serviceType: 'svc-play-agent', scope: 'EMBEDDED' })).toEqual([]);
    expect(installKindsFor({ serviceType: 'manual-play-agent-endpoint', scope: 'EXTERNAL' })).toEqual([]);
  });

  it('offers ffmpeg variants to play-agents except for uninstall', () => {
    expect(hasFfmpegVariant('svc-play-agent', 'binary')).toBe(true);
    expect(hasFfmpegVariant('svc-play-agent', 'upgrade-docker')).toBe(true);
    expect(hasFfmpegVariant('svc-play-agent', 'uninstall')).toBe(false);
    expect(hasFfmpegVariant('svc-control-storage', 'binary')).toBe(false);
  });
});

describe('masking', () => {
  it('keeps the prefix and the last four characters', () => {
    expect(maskToken(NODE_TOKEN)).toBe('svc_nt_…WXYZ');
    expect(maskToken('svc_ept_abcdefgh1234')).toBe('svc_ept_…1234');
    expect(maskToken('plain-secret-9876')).toBe('…9876');
  });

  it('replaces every occurrence of each secret', () => {
    const text = `a ${NODE_TOKEN} b ${NODE_TOKEN} c ${REGISTRY_TOKEN}`;
    const masked = maskSecretsIn(text, [NODE_TOKEN, REGISTRY_TOKEN, null]);
    expect(masked).toBe('a svc_nt_…WXYZ b svc_nt_…WXYZ c svc_rt_…1234');
    expect(masked).not.toContain(NODE_TOKEN);
  });

  it('builds the commands as the server does, quoting the ffmpeg variant', () => {
    expect(buildInstallCommand(CONFIG_URL, 'T', 'docker', false)).toBe(
      'curl -fsSL http://10.0.0.5:18085/api/config/nodes/install/T/docker | bash',
    );
    expect(buildInstallCommand(CONFIG_URL, 'T', 'docker', true)).toBe(
      "curl -fsSL 'http://10.0.0.5:18085/api/config/nodes/install/T/docker?ffmpeg=true' | bash",
    );
  });
});

describe('pickCommand', () => {
  const commands = commandsFor(['binary', 'uninstall'], ['binary']);

  it('takes the ffmpeg variant when asked and offered, else the plain one', () => {
    expect(pickCommand(commands, 'binary', true)?.ffmpeg).toBe(true);
    expect(pickCommand(commands, 'binary', false)?.ffmpeg).toBe(false);
    expect(pickCommand(commands, 'uninstall', true)?.ffmpeg).toBe(false);
    expect(pickCommand(commands, 'docker', false)).toBeUndefined();
  });
});

describe('commandLines', () => {
  const credentials = {
    nodeToken: NODE_TOKEN,
    registryToken: REGISTRY_TOKEN,
    installCommands: commandsFor(
      ['binary', 'docker', 'uninstall', 'upgrade-binary', 'upgrade-docker'],
      ['binary', 'docker', 'upgrade-binary', 'upgrade-docker'],
    ),
  };

  it('builds masked lines from the masked token before anything was fetched, with nothing to copy', () => {
    const lines = commandLines({ node: playAgent, credentials: null, revealed: false, ffmpeg: false });
    expect(lines.map((line) => line.kind)).toEqual([
      'binary',
      'docker',
      'uninstall',
      'upgrade-binary',
      'upgrade-docker',
    ]);
    expect(lines[0]?.display).toBe(
      'curl -fsSL <config-url>/api/config/nodes/install/svc_nt_…WXYZ/binary | bash',
    );
    expect(lines.every((line) => line.copyValue === null)).toBe(true);
  });

  it('shows and copies the full commands once revealed', () => {
    const lines = commandLines({ node: playAgent, credentials, revealed: true, ffmpeg: false });
    expect(lines[0]?.display).toContain(NODE_TOKEN);
    expect(lines[0]?.copyValue).toBe(lines[0]?.display);
    expect(lines[0]?.display).toContain(CONFIG_URL);
  });

  it('masks the token in the fetched commands when hidden again, keeping the real address', () => {
    const lines = commandLines({ node: playAgent, credentials, revealed: false, ffmpeg: false });
    expect(lines[0]?.display).toBe(
      `curl -fsSL ${CONFIG_URL}/api/config/nodes/install/svc_nt_…WXYZ/binary | bash`,
    );
    expect(lines.some((line) => line.display.includes(NODE_TOKEN))).toBe(false);
    expect(lines[0]?.copyValue).toBeNull();
  });

  it('switches to the ffmpeg variants, except for uninstall', () => {
    const lines = commandLines({ node: playAgent, credentials, revealed: true, ffmpeg: true });
    const byKind = new Map(lines.map((line) => [line.kind, line]));
    expect(byKind.get('binary')?.ffmpeg).toBe(true);
    expect(byKind.get('binary')?.copyValue).toContain('?ffmpeg=true');
    expect(byKind.get('uninstall')?.ffmpeg).toBe(false);
    expect(byKind.get('uninstall')?.copyValue).not.toContain('ffmpeg');
    const masked = commandLines({ node: playAgent, credentials: null, revealed: false, ffmpeg: true });
    expect(masked[0]?.display).toContain('?ffmpeg=true');
  });

  it('never adds ffmpeg to a storage node', () => {
    const storage = { ...playAgent, serviceType: 'svc-control-storage' as const };
    const lines = commandLines({ node: storage, credentials: null, revealed: false, ffmpeg: true });
    expect(lines.some((line) => line.ffmpeg)).toBe(false);
    expect(lines.map((line) => line.kind)).toContain('binary-jdk');
  });
});
