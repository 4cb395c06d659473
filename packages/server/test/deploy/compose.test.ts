// compose.yaml of the STANDALONE edition: no Docker engine runs here, so the file's structure is checked.
import { describe, expect, it } from 'vitest';
import {
  NON_PROGRAM_VARIABLES,
  durationSeconds,
  parseEnvExample,
  publishedPorts,
  readCompose,
  readRepoFile,
  serviceEnvironment,
  serviceNetworks,
  settingsVariables,
  volumeMounts,
  type ComposeService,
} from './deploy-files.js';

const compose = readCompose();
const services = compose.services;
const app = services.svc!;
const networks = compose.networks ?? {};
const internalNetworks = Object.entries(networks)
  .filter(([, network]) => network?.internal === true)
  .map(([name]) => name);

function isNamedVolume(source: string): boolean {
  return source !== '' && !/^[./~$]/.test(source);
}

describe('compose.yaml services', () => {
  it('has exactly the three services svc, postgres and redis', () => {
    expect(Object.keys(services).sort()).toEqual(['postgres', 'redis', 'svc']);
  });

  it('builds the application from the Dockerfile at the repository root', () => {
    const build = app.build as string | { context?: string; dockerfile?: string };
    const context = typeof build === 'string' ? build : build.context;
    const dockerfile = typeof build === 'string' ? 'Dockerfile' : (build.dockerfile ?? 'Dockerfile');
    expect(context).toBe('.');
    expect(dockerfile).toBe('Dockerfile');
    expect(readRepoFile(dockerfile)).toContain('standalone');
  });

  it('pins a PostgreSQL major and Redis 7', () => {
    expect(services.postgres!.image).toMatch(/^postgres:\d+(\.\d+)?(-[a-z0-9]+)?$/);
    expect(services.redis!.image).toMatch(/^redis:7(\.\d+)*(-[a-z0-9]+)?$/);
  });

  it('restarts every service unless stopped', () => {
    for (const [name, service] of Object.entries(services)) {
      expect(service.restart, name).toBe('unless-stopped');
    }
  });

  it('gives the application time to stop its child processes', () => {
    expect(durationSeconds(app.stop_grace_period)).toBeGreaterThanOrEqual(25);
  });
});

describe('compose.yaml exposure', () => {
  it('publishes exactly 18080 and 19090 from the application, each on the same port inside', () => {
    const ports = publishedPorts(app);
    expect(ports.map((port) => port.target).sort()).toEqual([18080, 19090]);
    for (const port of ports) expect(port.published).toBe(String(port.target));
  });

  it('publishes 19090 on SVC_PLAY_AGENT_BIND_HOST, 0.0.0.0 by default', () => {
    const playAgent = publishedPorts(app).find((port) => port.target === 19090);
    expect(playAgent?.hostIp).toBe('${SVC_PLAY_AGENT_BIND_HOST:-0.0.0.0}');
  });

  it('publishes nothing from postgres and redis', () => {
    for (const name of ['postgres', 'redis']) {
      expect(services[name]!.ports, name).toBeUndefined();
      expect(services[name]!.network_mode, name).toBeUndefined();
    }
  });

  it('keeps postgres and redis on one internal network only, shared with the application', () => {
    expect(internalNetworks).toHaveLength(1);
    const [internal] = internalNetworks;
    expect(serviceNetworks(services.postgres!)).toEqual([internal]);
    expect(serviceNetworks(services.redis!)).toEqual([internal]);
    expect(serviceNetworks(app)).toContain(internal);
  });

  it('puts the application on a non-internal network too, for its published ports', () => {
    const outside = serviceNetworks(app).filter((name) => !internalNetworks.includes(name));
    expect(outside.length).toBeGreaterThan(0);
    expect(app.network_mode).toBeUndefined();
  });
});

describe('compose.yaml storage', () => {
  const mounts = volumeMounts(app);
  const declared = Object.keys(compose.volumes ?? {});

  it.each(['/data', '/data/play-agent/vfs-cache', '/data/play-agent/image-cache'])(
    'mounts a declared named volume of its own at %s',
    (target) => {
      const mount = mounts.find((entry) => entry.target === target);
      expect(mount, target).toBeDefined();
      expect(isNamedVolume(mount!.source)).toBe(true);
      expect(declared).toContain(mount!.source);
    },
  );

  it('uses three different volumes for the data folder and the two play-agent caches', () => {
    const sources = ['/data', '/data/play-agent/vfs-cache', '/data/play-agent/image-cache'].map(
      (target) => mounts.find((entry) => entry.target === target)?.source,
    );
    expect(new Set(sources).size).toBe(3);
  });

  it('keeps the PostgreSQL data in a named volume', () => {
    const mount = volumeMounts(services.postgres!).find(
      (entry) => entry.target === '/var/lib/postgresql/data',
    );
    expect(mount && isNamedVolume(mount.source)).toBe(true);
    expect(declared).toContain(mount!.source);
  });
});

describe('compose.yaml start order and health', () => {
  function healthTest(service: ComposeService): string {
    const healthcheck = service.healthcheck as { test?: string | string[] } | undefined;
    const test = healthcheck?.test;
    return Array.isArray(test) ? test.join(' ') : (test ?? '');
  }

  it('checks postgres with pg_isready and redis with redis-cli ping', () => {
    expect(healthTest(services.postgres!)).toMatch(/pg_isready/);
    expect(healthTest(services.redis!)).toMatch(/redis-cli.*ping/);
  });

  it('starts the application only after postgres and redis are healthy', () => {
    const dependsOn = app.depends_on as Record<string, { condition?: string }>;
    expect(Object.keys(dependsOn).sort()).toEqual(['postgres', 'redis']);
    for (const name of ['postgres', 'redis'])
      expect(dependsOn[name]?.condition, name).toBe('service_healthy');
  });
});

describe('compose.yaml environment', () => {
  const environment = serviceEnvironment(app);

  it('points the application at the postgres and redis services', () => {
    expect(environment.SVC_DB_MODE).toBe('external');
    expect(environment.SVC_DATABASE_URL).toMatch(
      /^postgres:\/\/svc:\$\{SVC_DB_PASSWORD(:?\?[^}]*)?\}@postgres:5432\/postgres$/,
    );
    expect(environment.SVC_REDIS_URL).toBe('redis://redis:6379');
    expect(environment.SVC_DATA_DIR).toBe('/data');
  });

  it('creates the database user svc (a superuser of the image) with the same password', () => {
    const postgres = serviceEnvironment(services.postgres!);
    expect(postgres.POSTGRES_USER).toBe('svc');
    expect(postgres.POSTGRES_PASSWORD).toMatch(/^\$\{SVC_DB_PASSWORD(:?\?[^}]*)?\}$/);
  });

  it('listens on every interface inside the container whatever .env says', () => {
    expect(environment.SVC_BIND_HOST).toBe('0.0.0.0');
    expect(environment.SVC_PLAY_AGENT_BIND_HOST).toBe('0.0.0.0');
    expect(environment.SVC_FRONTEND_PORT).toBe('18080');
    expect(environment.PLAY_AGENT_LISTEN).toBe('0.0.0.0:19090');
  });

  it('says in .env.example which variables compose.yaml sets itself', () => {
    for (const entry of parseEnvExample().filter((candidate) => candidate.name in environment)) {
      expect(entry.description.join(' '), entry.name).toMatch(/compose/i);
    }
  });

  it('reads .env when it exists (long syntax, not required)', () => {
    expect(app.env_file).toEqual([{ path: '.env', required: false }]);
  });

  it('sets only variables the program reads, and interpolates only documented ones', () => {
    const known = new Set([...settingsVariables(), ...NON_PROGRAM_VARIABLES]);
    for (const name of Object.keys(environment)) expect(known.has(name), name).toBe(true);

    const documented = new Set(parseEnvExample().map((entry) => entry.name));
    const interpolated = [...readRepoFile('compose.yaml').matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map(
      (m) => m[1]!,
    );
    expect(interpolated.length).toBeGreaterThan(0);
    for (const name of interpolated) expect(documented.has(name), name).toBe(true);
  });
});
