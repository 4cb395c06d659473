// Dockerfile and .dockerignore of the STANDALONE image: no Docker engine runs here, so the structure is checked.
import { describe, expect, it } from 'vitest';
import {
  commandWords,
  dockerStages,
  parseDockerfile,
  publishedPorts,
  readCompose,
  readRepoFile,
  type DockerInstruction,
} from './deploy-files.js';

const instructions = parseDockerfile();
const stages = dockerStages(instructions);
const runtime = stages.at(-1) ?? [];
const rootPackage = JSON.parse(readRepoFile('package.json')) as {
  workspaces: string[];
  scripts: Record<string, string>;
};

function runtimeArgs(keyword: string): string[] {
  return runtime
    .filter((instruction) => instruction.keyword === keyword)
    .map((instruction) => instruction.args);
}

function last(keyword: string, stage: DockerInstruction[] = runtime): DockerInstruction | undefined {
  return stage.filter((instruction) => instruction.keyword === keyword).at(-1);
}

function runs(stage: DockerInstruction[]): string {
  return stage
    .filter((instruction) => instruction.keyword === 'RUN')
    .map((instruction) => instruction.args)
    .join('\n');
}

describe('Dockerfile stages', () => {
  it('builds in several stages, all on node:24-bookworm-slim (the current LTS)', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage[0]!.args).toMatch(/^node:24-bookworm-slim(\s+AS\s+\S+)?$/i);
  });

  it('builds with npm ci and npm run build in a stage before the runtime', () => {
    const build = stages.slice(0, -1).map(runs).join('\n');
    expect(build).toMatch(/npm ci\b(?![^\n]*--omit=dev)/);
    expect(build).toMatch(/npm run build/);
    expect(runs(runtime)).not.toMatch(/npm (ci|install|run build)/);
  });

  it('builds the worker-node binary into dist/node-binary, which the runtime copies with dist', () => {
    const build = stages.slice(0, -1).map(runs).join('\n');
    // The default --out of scripts/build-node-binary.mjs is packages/server/dist/node-binary.
    expect(build).toMatch(/node scripts\/build-node-binary\.mjs(?![^\n]*--out)/);
    expect(readRepoFile('Dockerfile')).toMatch(
      /COPY --from=build \/app\/packages\/server\/dist packages\/server\/dist/,
    );
  });

  it('installs production dependencies only for the runtime', () => {
    expect(stages.map(runs).join('\n')).toMatch(/npm ci\b[^\n]*--omit=dev/);
  });

  it('copies every workspace package.json before npm ci', () => {
    const copies = instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    for (const workspace of rootPackage.workspaces) {
      expect(
        copies.some((args) => args.includes(`${workspace}/package.json`)),
        workspace,
      ).toBe(true);
    }
  });

  it('copies the server bundle and the web app into the runtime stage', () => {
    const copies = runtimeArgs('COPY').join('\n');
    expect(copies).toMatch(/--from=\S+\s+\S*packages\/server\/dist\b/);
    expect(copies).toMatch(/--from=\S+\s+\S*packages\/web\/dist\b/);
  });
});

describe('Dockerfile runtime', () => {
  it('installs ffmpeg (ffprobe) from Debian', () => {
    expect(runs(runtime)).toMatch(/apt-get install[^\n]*\bffmpeg\b/);
  });

  it('runs as a non-root user', () => {
    const user = last('USER')?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
  });

  it('keeps its data in /data, declared as a volume', () => {
    expect(runtimeArgs('ENV').join(' ')).toMatch(/\bSVC_DATA_DIR[= ]\/data\b/);
    expect(runtimeArgs('VOLUME').join(' ')).toMatch(/(^|[\s"[])\/data($|[\s",\]])/);
  });

  it('exposes exactly 18080 and 19090, the ports compose.yaml publishes', () => {
    const exposed = runtimeArgs('EXPOSE')
      .flatMap((args) => args.split(/\s+/))
      .map((port) => Number(port.replace(/\/tcp$/, '')))
      .sort();
    expect(exposed).toEqual([18080, 19090]);
    const published = publishedPorts(readCompose().services.svc!)
      .map((port) => port.target)
      .sort();
    expect(published).toEqual(exposed);
  });

  it('has a HEALTHCHECK that asks the licence status with node', () => {
    const healthcheck = last('HEALTHCHECK')?.args ?? '';
    expect(healthcheck).toMatch(/\bCMD\b/);
    expect(healthcheck).toContain('/api/license/status');
    expect(healthcheck).toMatch(/\bCMD\s+(\[\s*"node"|node\b)/);
  });

  it('stops with SIGTERM', () => {
    expect(last('STOPSIGNAL')?.args).toBe('SIGTERM');
  });

  it('runs the standalone edition, the same command as npm start', () => {
    const entrypoint = last('ENTRYPOINT');
    const cmd = last('CMD');
    const words = [
      ...(entrypoint ? commandWords(entrypoint.args) : []),
      ...(cmd ? commandWords(cmd.args) : []),
    ];
    expect(words.at(-1)).toBe('standalone');
    expect(words.join(' ')).toContain(rootPackage.scripts.start!);
  });
});

describe('.dockerignore', () => {
  const ignored = readRepoFile('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

  it.each(['node_modules', 'data', 'dist', '.git', 'test-results', '.env'])('excludes %s', (entry) => {
    expect(ignored).toContain(entry);
  });
});
