// The worker-node script generator (services/config/install): every kind is valid bash in strict mode with
// the error trap, values are quoted so that hostile ones stay data, and the scripts behave on the failure
// paths that need no installed node. The full install, upgrade and uninstall runs are in
// test/e2e/node-install.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  INSTALL_KINDS,
  kindAllowed,
  type InstallKind,
  type WorkerServiceType,
} from '../../../src/services/config/install/install-kinds.js';
import {
  generateNodeScript,
  nodePort,
  type ScriptNode,
  type ScriptOptions,
} from '../../../src/services/config/install/script-generator.js';
import { shellQuote } from '../../../src/services/config/install/shell.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'svc-install-scripts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const NODE_TOKEN = 'svc_nt_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde';
const REGISTRY_TOKEN = 'svc_rt_ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210_-edcba';
const SERVICE_TOKEN = 'svc_st_service_token_for_the_script_tests_0123456789';

function node(serviceType: WorkerServiceType, overrides: Partial<ScriptNode> = {}): ScriptNode {
  return {
    nodeId: serviceType === 'svc-play-agent' ? 'node-player-1' : 'node-storage-1',
    name: 'Living room',
    serviceType,
    nodeToken: NODE_TOKEN,
    registryToken: REGISTRY_TOKEN,
    listenPort: null,
    expectedHost: '192.0.2.10',
    expectedPort: null,
    publicBaseUrl: serviceType === 'svc-play-agent' ? 'https://play.example.com' : null,
    ...overrides,
  };
}

function options(kind: InstallKind, target: ScriptNode, extra: Partial<ScriptOptions> = {}): ScriptOptions {
  return {
    kind,
    node: target,
    configBaseUrl: 'http://192.0.2.1:18085',
    serviceToken: SERVICE_TOKEN,
    ffmpeg: false,
    image: 'svc-media:0.1.0',
    version: '0.1.0',
    ...extra,
  };
}

function bash(args: string[], input?: string, env: Record<string, string> = {}) {
  return spawnSync('bash', args, {
    input,
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, ...env },
  });
}

const hasShellcheck = spawnSync('sh', ['-c', 'command -v shellcheck']).status === 0;

/** The generated assignments of a script, between its two marker lines. */
function header(script: string): string {
  const start = script.indexOf('# ---- values of this node (generated) ----');
  const end = script.indexOf('# ---- end of generated values ----');
  expect(start).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  return script.slice(start, end);
}

const cases = (['svc-control-storage', 'svc-play-agent'] as const).flatMap((type) =>
  INSTALL_KINDS.filter((kind) => kindAllowed(kind, type)).map((kind) => ({ type, kind })),
);

describe('install scripts: every kind', () => {
  it('offers binary-jdk to storage nodes only', () => {
    expect(kindAllowed('binary-jdk', 'svc-control-storage')).toBe(true);
    expect(kindAllowed('binary-jdk', 'svc-play-agent')).toBe(false);
    expect(cases).toHaveLength(11);
  });

  it.each(cases)(
    '$kind for $type: bash syntax, strict mode, error trap, colour only on a terminal',
    ({ type, kind }) => {
      const script = generateNodeScript(options(kind, node(type), { ffmpeg: true }));
      const lines = script.split('\n');
      expect(lines[0]).toBe('#!/usr/bin/env bash');
      // Strict mode comes before any command.
      const strict = lines.indexOf('set -Eeuo pipefail');
      expect(strict).toBeGreaterThan(0);
      expect(lines.slice(1, strict).every((line) => line === '' || line.startsWith('#'))).toBe(true);
      expect(script).toContain(`trap 'on_error $? $LINENO' ERR`);
      expect(script).toMatch(/printf '%s\[svc-node\] failed: step "%s", line %s, exit code %s%s\\n'/);
      expect(script).toContain('if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then');
      // No template placeholder survives, and main runs last.
      expect(script).not.toContain('%{');
      expect(script.endsWith('\nmain "$@"\n')).toBe(true);

      const file = path.join(scratch, `${type}-${kind}.sh`);
      writeFileSync(file, script);
      const syntax = bash(['-n', file]);
      expect(syntax.stderr).toBe('');
      expect(syntax.status).toBe(0);
      // CI installs shellcheck (.ci/run): there a missing one fails instead of passing unchecked.
      if (process.env.CI) expect(hasShellcheck, 'shellcheck is not installed').toBe(true);
      if (hasShellcheck) {
        const check = spawnSync('shellcheck', ['-s', 'bash', file], { encoding: 'utf8' });
        expect(check.stdout + check.stderr).toBe('');
        expect(check.status).toBe(0);
      }
    },
  );

  it.each(cases)('$kind for $type: credentials only where the kind needs them', ({ type, kind }) => {
    const script = generateNodeScript(options(kind, node(type)));
    expect(script).toContain(NODE_TOKEN);
    const first = kind === 'binary' || kind === 'binary-jdk' || kind === 'docker';
    expect(script.includes(SERVICE_TOKEN)).toBe(first);
    expect(script.includes(REGISTRY_TOKEN)).toBe(first);
  });

  it('chooses the port by type: listen port of a play-agent, expected port of a storage node', () => {
    expect(nodePort(node('svc-play-agent'))).toBe(19090);
    expect(nodePort(node('svc-play-agent', { listenPort: 19091, expectedPort: 443 }))).toBe(19091);
    expect(nodePort(node('svc-control-storage'))).toBe(18084);
    expect(nodePort(node('svc-control-storage', { expectedPort: 28084 }))).toBe(28084);
  });

  it.skipIf(spawnSync('sh', ['-c', 'command -v apt-cache']).status !== 0)(
    "binary-jdk picks a JDK package that this machine's package lists really offer (17 on Debian 12)",
    () => {
      const script = generateNodeScript(options('binary-jdk', node('svc-control-storage')));
      // Everything but the last line (main "$@"), then only the chooser, against the real apt-cache.
      const chosen = bash(['-c', `${script.replace(/main "\$@"\n$/, '')}\nchoose_jdk_package`]);
      expect(chosen.status, chosen.stderr).toBe(0);
      const pkg = chosen.stdout.trim();
      expect(['openjdk-21-jdk-headless', 'openjdk-17-jdk-headless']).toContain(pkg);
      expect(spawnSync('apt-cache', ['show', pkg]).status).toBe(0);
      const release = existsSync('/etc/os-release')
        ? spawnSync('cat', ['/etc/os-release'], { encoding: 'utf8' }).stdout
        : '';
      if (/VERSION_CODENAME=bookworm/.test(release)) expect(pkg).toBe('openjdk-17-jdk-headless');
    },
  );

  it('asks for ffmpeg on play-agents only, and for the JDK in binary-jdk only', () => {
    const read = (script: string, name: string) => new RegExp(`readonly ${name}='([^']*)'`).exec(script)?.[1];
    const player = generateNodeScript(options('binary', node('svc-play-agent'), { ffmpeg: true }));
    expect(read(player, 'WITH_FFMPEG')).toBe('1');
    expect(read(player, 'WITH_JDK')).toBe('0');
    const storage = generateNodeScript(options('binary', node('svc-control-storage'), { ffmpeg: true }));
    expect(read(storage, 'WITH_FFMPEG')).toBe('0');
    const jdk = generateNodeScript(options('binary-jdk', node('svc-control-storage')));
    expect(read(jdk, 'WITH_JDK')).toBe('1');
    // The container form gets ffmpeg from its image, not from the host's package manager; it only records the
    // choice in node.env (SVC_NODE_FFMPEG), so that remote upgrades keep the image variant.
    const docker = generateNodeScript(
      options('docker', node('svc-play-agent'), { ffmpeg: true, image: 'svc-media:0.1.0-ffmpeg' }),
    );
    expect(read(docker, 'WITH_FFMPEG')).toBe('1');
    expect(docker).not.toContain('then install_ffmpeg');
    expect(docker).toContain('setting SVC_NODE_FFMPEG 1');
    expect(read(generateNodeScript(options('upgrade-docker', node('svc-play-agent'))), 'WITH_FFMPEG')).toBe(
      undefined,
    );
    expect(read(docker, 'IMAGE_GENERATED')).toBe('svc-media:0.1.0-ffmpeg');
  });
});

describe('install scripts: quoting', () => {
  const hostileNames = [
    '$(touch PWNED)',
    '`touch PWNED`',
    "it's; touch PWNED",
    `"; touch PWNED; echo "`,
    "'$(touch PWNED)'",
    'line one\ntouch PWNED\n# line three',
    '${IFS}touch${IFS}PWNED \\ \\\\ * ? [a] ~ !! %{x} &',
  ];

  it('shellQuote gives one word that bash reads back unchanged', () => {
    for (const value of [...hostileNames, '', "''", 'a\tb']) {
      const result = bash(['-c', `printf '%s' ${shellQuote(value)}`]);
      expect(result.stdout).toBe(value);
    }
    expect(() => shellQuote('a\0b')).toThrow(/NUL/);
  });

  it.each(hostileNames)('a node name such as %j stays data in every kind', (name) => {
    const dir = mkdtempSync(path.join(scratch, 'quote-'));
    for (const { type, kind } of cases) {
      const script = generateNodeScript(options(kind, node(type, { name })));
      // The assignments evaluate to exactly the values, and nothing runs.
      const result = bash(
        ['-c', `${header(script)}\nprintf '%s\\0' "$NODE_NAME" "$NODE_ID" "$NODE_TOKEN"`],
        undefined,
        {},
      );
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout.split('\0').slice(0, 3)).toEqual([name, node(type).nodeId, NODE_TOKEN]);
      expect(bash(['-n', '-c', script]).status).toBe(0);
    }
    // A whole uninstall run (nothing installed) prints the name and creates no file.
    const script = generateNodeScript(options('uninstall', node('svc-play-agent', { name })));
    const run = spawnSync('bash', [], {
      input: script,
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        SVC_NODE_WORK_DIR: path.join(dir, 'work'),
      },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(name.split('\n')[0]);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(path.join(process.cwd(), 'PWNED'))).toBe(false);
  });

  it('refuses values that the settings file cannot carry', () => {
    const target = node('svc-play-agent');
    expect(() => generateNodeScript(options('binary', target, { configBaseUrl: "http://x/'$(id)" }))).toThrow(
      /config URL/,
    );
    expect(() =>
      generateNodeScript(options('binary', { ...target, publicBaseUrl: 'https://a b' }, {})),
    ).toThrow(/external address/);
    expect(() => generateNodeScript(options('binary', { ...target, nodeId: 'node-$(id)' }))).toThrow(
      /node id/,
    );
    expect(() => generateNodeScript(options('docker', target, { image: 'svc;rm' }))).toThrow(/image/);
  });
});

describe('install scripts: behaviour without an installed node', () => {
  const run = (script: string, env: Record<string, string>) =>
    spawnSync('bash', [], {
      input: script,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, ...env },
    });

  it('names the step, the line and the exit code when a command fails', () => {
    const dir = mkdtempSync(path.join(scratch, 'trap-'));
    // The work directory is a file: creating bin/ under it fails in "prepare the work directory".
    const work = path.join(dir, 'work');
    writeFileSync(work, 'not a folder');
    const script = generateNodeScript(options('binary', node('svc-play-agent')));
    const line =
      script.split('\n').findIndex((text) => text.includes('mkdir -p "$WORK/bin" "$WORK/data"')) + 1;
    const result = run(script, { SVC_NODE_WORK_DIR: work, SVC_NODE_SERVICE_MANAGER: 'none' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `[svc-node] failed: step "prepare the work directory", line ${line}, exit code 1`,
    );
    // Not a terminal: no colour codes.
    expect(result.stdout + result.stderr).not.toContain('\u001b[');
  });

  it('checks the values given when it runs', () => {
    const script = generateNodeScript(options('binary', node('svc-play-agent')));
    const relative = run(script, { SVC_NODE_WORK_DIR: 'relative/dir' });
    expect(relative.status).toBe(1);
    expect(relative.stderr).toContain('SVC_NODE_WORK_DIR must be an absolute folder');
    const root = run(script, { SVC_NODE_WORK_DIR: '/' });
    expect(root.status).toBe(1);
    const escape = run(script, { SVC_NODE_WORK_DIR: `${scratch}/a/../../etc` });
    expect(escape.status).toBe(1);
    expect(escape.stderr).toContain('SVC_NODE_WORK_DIR');
    const manager = run(script, { SVC_NODE_WORK_DIR: `${scratch}/m`, SVC_NODE_SERVICE_MANAGER: 'launchd' });
    expect(manager.stderr).toContain('SVC_NODE_SERVICE_MANAGER must be auto, systemd or none');
    const port = run(script, { SVC_NODE_WORK_DIR: `${scratch}/p`, SVC_NODE_PORT: '70000' });
    expect(port.stderr).toContain('SVC_NODE_PORT must be a TCP port');
  });

  it('refuses to touch a folder that is not this node', () => {
    const dir = mkdtempSync(path.join(scratch, 'foreign-'));
    writeFileSync(path.join(dir, 'precious.txt'), 'keep me');
    const uninstall = run(generateNodeScript(options('uninstall', node('svc-play-agent'))), {
      SVC_NODE_WORK_DIR: dir,
    });
    expect(uninstall.status).toBe(1);
    expect(uninstall.stderr).toContain('not deleting');
    expect(existsSync(path.join(dir, 'precious.txt'))).toBe(true);
    writeFileSync(path.join(dir, '.svc-node'), 'node_id=node-someone-else\nservice=svc-play-agent\n');
    const again = run(generateNodeScript(options('uninstall', node('svc-play-agent'))), {
      SVC_NODE_WORK_DIR: dir,
    });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('belongs to another node');
    expect(existsSync(path.join(dir, 'precious.txt'))).toBe(true);
    const upgrade = run(generateNodeScript(options('upgrade-binary', node('svc-play-agent'))), {
      SVC_NODE_WORK_DIR: path.join(scratch, 'never-installed'),
    });
    expect(upgrade.status).toBe(1);
    expect(upgrade.stderr).toContain('is not installed in');
  });

  it('stops with a clear message when the binary cannot be downloaded', () => {
    const dir = mkdtempSync(path.join(scratch, 'download-'));
    const script = generateNodeScript(
      options('binary', node('svc-play-agent'), { configBaseUrl: 'http://127.0.0.1:9' }),
    );
    const result = run(script, {
      SVC_NODE_WORK_DIR: path.join(dir, 'work'),
      SVC_NODE_SERVICE_MANAGER: 'none',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'error in step "download the node binary": cannot download the node binary',
    );
  });
});
