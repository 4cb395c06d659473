import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, parseListenAddress, SettingsError } from '../../src/platform/settings.js';

function refusal(env: Record<string, string>): SettingsError {
  try {
    loadSettings(env, '/tmp');
  } catch (error) {
    if (error instanceof SettingsError) return error;
    throw error;
  }
  throw new Error('settings were accepted');
}

describe('settings', () => {
  it('has the spec defaults', () => {
    const settings = loadSettings({}, '/srv/app');
    expect(settings.dataDir).toBe('/srv/app/data');
    expect(settings.dbMode).toBe('bundled');
    expect(settings.ports).toEqual({
      frontend: 18080,
      user: 18082,
      media: 18083,
      storage: 18084,
      config: 18085,
      gateway: 18086,
      internal: 18088,
      cluster: 18089,
      playAgent: 19090,
    });
    expect(settings.playAgentBindHost).toBe('0.0.0.0');
    expect(settings.playAgent.listenHost).toBe('0.0.0.0');
    expect(settings.embeddedStorageNodeId).toBe('node-local-storage');
    expect(settings.embeddedPlayAgentNodeId).toBe('node-local-play-agent');
    expect(settings.playAgent.vfsCacheDir).toBe('/srv/app/data/play-agent/vfs-cache');
    expect(settings.configBaseUrl).toBe('http://127.0.0.1:18085');
  });

  it.each([
    [{ SVC_DB_MODE: 'sqlite' }, 'SVC_DB_MODE'],
    [{ SVC_DB_MODE: 'external' }, 'SVC_DATABASE_URL'],
    [{ SVC_DB_MODE: 'external', SVC_DATABASE_URL: 'mysql://x' }, 'SVC_DATABASE_URL'],
    [{ SVC_REDIS_URL: 'http://x' }, 'SVC_REDIS_URL'],
    [{ SVC_USER_PORT: '0' }, 'SVC_USER_PORT'],
    [{ SVC_USER_PORT: '65536' }, 'SVC_USER_PORT'],
    [{ SVC_USER_PORT: '12ab' }, 'SVC_USER_PORT'],
    [{ SVC_MEDIA_PORT: '18082' }, 'SVC_MEDIA_PORT'],
    [{ PLAY_AGENT_LISTEN: 'nowhere' }, 'PLAY_AGENT_LISTEN'],
    [{ PLAY_AGENT_LISTEN: ':99999' }, 'PLAY_AGENT_LISTEN'],
    [{ SVC_PLAY_AGENT_BIND_HOST: 'not a host!' }, 'SVC_PLAY_AGENT_BIND_HOST'],
    [{ SVC_SERVICE_TOKEN: 'short' }, 'SVC_SERVICE_TOKEN'],
    [{ SVC_NODE_ID: 'node-a' }, 'SVC_NODE_ID'],
    [{ SVC_NODE_ID: 'player-abc' }, 'SVC_NODE_ID'],
    [{ SVC_EMBEDDED_STORAGE_NODE_ID: 'node-' + 'x'.repeat(61) }, 'SVC_EMBEDDED_STORAGE_NODE_ID'],
    [{ SVC_LOG_LEVEL: 'loud' }, 'SVC_LOG_LEVEL'],
    [{ SVC_DB_NAME_SUFFIX: 'x; drop' }, 'SVC_DB_NAME_SUFFIX'],
    [{ PLAY_AGENT_PUBLIC_BASE_URL: 'ftp://x' }, 'PLAY_AGENT_PUBLIC_BASE_URL'],
    [{ PLAY_AGENT_CONFIG: '/nonexistent/play-agent.yaml' }, 'PLAY_AGENT_CONFIG'],
  ])('refuses %o naming %s', (env, variable) => {
    const error = refusal(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(new RegExp(`^${variable}: `));
    expect(error.message).not.toContain('\n');
  });

  it('parses listen addresses', () => {
    expect(parseListenAddress('X', ':19090', '0.0.0.0')).toEqual({ host: '0.0.0.0', port: 19090 });
    expect(parseListenAddress('X', '19091', '127.0.0.1')).toEqual({ host: '127.0.0.1', port: 19091 });
    expect(parseListenAddress('X', '127.0.0.1:19090', '0.0.0.0')).toEqual({ host: '127.0.0.1', port: 19090 });
    expect(parseListenAddress('X', '[::1]:19090', '0.0.0.0')).toEqual({ host: '::1', port: 19090 });
  });

  it('reads the play-agent file and lets the environment win', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-settings-'));
    const file = path.join(dir, 'play-agent.yaml');
    writeFileSync(
      file,
      [
        "listen_address: ':19091'",
        'public_base_url: https://play.example.org',
        'service_name: svc-play-agent',
        'config_base_url: http://10.0.0.5:18085',
        'node_id: node-living-room',
        'registry_token: from-file',
      ].join('\n'),
    );
    const fromFile = loadSettings({ PLAY_AGENT_CONFIG: file }, dir);
    expect(fromFile.playAgent).toMatchObject({
      listenPort: 19091,
      publicBaseUrl: 'https://play.example.org',
      configBaseUrl: 'http://10.0.0.5:18085',
      nodeId: 'node-living-room',
      registryToken: 'from-file',
    });
    const overridden = loadSettings(
      {
        PLAY_AGENT_CONFIG: file,
        PLAY_AGENT_LISTEN: ':19092',
        SVC_NODE_ID: 'node-kitchen',
        SVC_REGISTRY_TOKEN: 'env',
      },
      dir,
    );
    expect(overridden.playAgent).toMatchObject({
      listenPort: 19092,
      nodeId: 'node-kitchen',
      registryToken: 'env',
    });
    // PLAY_AGENT_REGISTRY_TOKEN wins over SVC_REGISTRY_TOKEN.
    expect(
      loadSettings({ PLAY_AGENT_REGISTRY_TOKEN: 'a', SVC_REGISTRY_TOKEN: 'b' }, dir).playAgent.registryToken,
    ).toBe('a');
  });

  it('refuses unknown keys and a wrong service name in the play-agent file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-settings-'));
    const unknown = path.join(dir, 'a.yaml');
    writeFileSync(unknown, 'listen_adress: ":19090"\n');
    expect(refusal({ PLAY_AGENT_CONFIG: unknown }).message).toContain("unknown key 'listen_adress'");
    const wrongName = path.join(dir, 'b.yaml');
    writeFileSync(wrongName, 'service_name: svc-storage\n');
    expect(refusal({ PLAY_AGENT_CONFIG: wrongName }).variable).toBe('PLAY_AGENT_CONFIG');
  });
});
