// Readers shared by the deployment-file tests: compose.yaml, .env.example, Dockerfile and settings.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

export function readRepoFile(relativePath: string): string {
  return readFileSync(path.join(repoRoot, relativePath), 'utf8');
}

/** Variables used by compose.yaml or by the test suites only; documented in .env.example, never read by settings.ts. */
export const NON_PROGRAM_VARIABLES = ['SVC_DB_PASSWORD', 'SVC_TEST_DATABASE_URL', 'SVC_TEST_REDIS_URL'];

/**
 * Every environment variable name settings.ts reads: `env.NAME`, `env['NAME']`, names handed to helpers such
 * as `port(env, 'NAME', 1)`, and any other 'SVC_…' / 'PLAY_AGENT_…' string literal.
 */
export function settingsVariables(
  source = readRepoFile('packages/server/src/platform/settings.ts'),
): Set<string> {
  const name = '([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)';
  const patterns = [
    new RegExp(`\\benv\\.${name}\\b`, 'g'),
    new RegExp(`\\benv\\[\\s*'${name}'\\s*\\]`, 'g'),
    // port(env, 'SVC_FRONTEND_PORT', 18080), host(env, ...), httpUrl('NAME', ...), nodeId('NAME', ...), ...
    new RegExp(`\\b[A-Za-z_$][\\w$]*\\(\\s*(?:env\\s*,\\s*)?'${name}'`, 'g'),
    // Any other literal spelled like one of the program's variables, e.g. a constant later used as env[NAME].
    /['"]((?:SVC|PLAY_AGENT)_[A-Z0-9_]+)['"]/g,
  ];
  const names = new Set<string>();
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) names.add(match[1]!);
  }
  return names;
}

export interface EnvExampleEntry {
  name: string;
  value: string;
  commentedOut: boolean;
  line: number;
  /** Prose comment lines directly above the entry. */
  description: string[];
}

const ENTRY = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/;

export function parseEnvExample(text = readRepoFile('.env.example')): EnvExampleEntry[] {
  const entries: EnvExampleEntry[] = [];
  let description: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    const entry = ENTRY.exec(line);
    if (entry) {
      entries.push({
        name: entry[2]!,
        value: entry[3]!,
        commentedOut: entry[1] !== undefined,
        line: index + 1,
        description,
      });
      description = [];
    } else if (line.startsWith('#')) {
      description.push(line.replace(/^#\s?/, ''));
    } else {
      description = [];
    }
  });
  return entries;
}

export interface DockerInstruction {
  keyword: string;
  args: string;
  line: number;
}

/** Logical Dockerfile instructions: comments dropped, backslash continuations joined. */
export function parseDockerfile(text = readRepoFile('Dockerfile')): DockerInstruction[] {
  const instructions: DockerInstruction[] = [];
  let pending: { text: string; line: number } | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === undefined)) return;
    const continues = line.endsWith('\\');
    const part = continues ? line.slice(0, -1) : line;
    pending = pending
      ? { text: `${pending.text} ${part}`, line: pending.line }
      : { text: part, line: index + 1 };
    if (continues) return;
    const match = /^(\S+)\s*(.*)$/.exec(pending.text.trim());
    if (match)
      instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: pending.line });
    pending = undefined;
  });
  return instructions;
}

/** Splits instructions by FROM; each stage keeps its FROM line first. */
export function dockerStages(instructions: DockerInstruction[]): DockerInstruction[][] {
  const stages: DockerInstruction[][] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') stages.push([instruction]);
    else stages.at(-1)?.push(instruction);
  }
  return stages;
}

/** Exec form (JSON array) of CMD / ENTRYPOINT, or the shell form split on spaces. */
export function commandWords(args: string): string[] {
  if (args.startsWith('[')) return JSON.parse(args) as string[];
  return args.split(/\s+/).filter(Boolean);
}

export type ComposeFile = Record<string, unknown> & {
  services: Record<string, ComposeService>;
  networks?: Record<string, { internal?: boolean } | null>;
  volumes?: Record<string, unknown>;
};

export type ComposeService = Record<string, unknown>;

export function readCompose(text = readRepoFile('compose.yaml')): ComposeFile {
  return parseYaml(text) as ComposeFile;
}

export interface PublishedPort {
  hostIp: string | undefined;
  published: string;
  target: number;
}

/** Normalises short ('[ip:]host:container') and long ({ target, published, host_ip }) port entries. */
export function publishedPorts(service: ComposeService): PublishedPort[] {
  const ports = (service.ports ?? []) as unknown[];
  return ports.map((entry) => {
    if (typeof entry === 'object' && entry !== null) {
      const long = entry as { target: number; published?: string | number; host_ip?: string };
      return { hostIp: long.host_ip, published: String(long.published ?? ''), target: Number(long.target) };
    }
    const text = String(entry).replace(/\/(tcp|udp)$/, '');
    // The host address may itself be an interpolation such as ${SVC_PLAY_AGENT_BIND_HOST:-0.0.0.0}.
    const match = /^(?:(\$\{[^}]+\}|[^:]+):)?(?:([^:]*):)?(\d+)$/.exec(text);
    if (!match) throw new Error(`unreadable port entry '${text}'`);
    const [, first, second, target] = match;
    if (second === undefined) return { hostIp: undefined, published: first ?? '', target: Number(target) };
    return { hostIp: first, published: second, target: Number(target) };
  });
}

export interface VolumeMount {
  source: string;
  target: string;
}

export function volumeMounts(service: ComposeService): VolumeMount[] {
  const volumes = (service.volumes ?? []) as unknown[];
  return volumes.map((entry) => {
    if (typeof entry === 'object' && entry !== null) {
      const long = entry as { source?: string; target: string };
      return { source: long.source ?? '', target: long.target };
    }
    const [source = '', target = ''] = String(entry).split(':');
    return { source, target };
  });
}

export function serviceNetworks(service: ComposeService): string[] {
  const networks = service.networks;
  if (networks === undefined) return ['default'];
  return Array.isArray(networks) ? networks.map(String) : Object.keys(networks as object);
}

export function serviceEnvironment(service: ComposeService): Record<string, string> {
  const environment = service.environment ?? {};
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map((entry) => {
        const [name = '', ...rest] = String(entry).split('=');
        return [name, rest.join('=')];
      }),
    );
  }
  return Object.fromEntries(
    Object.entries(environment as Record<string, unknown>).map(([name, value]) => [name, String(value)]),
  );
}

/** '30s', '1m30s', '1m' → seconds. */
export function durationSeconds(value: unknown): number {
  const text = String(value);
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!match || text === '') throw new Error(`unreadable duration '${text}'`);
  return Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0);
}
