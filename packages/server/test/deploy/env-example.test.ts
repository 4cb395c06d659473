// .env.example must document every variable settings.ts reads, and nothing the program does not know.
import { describe, expect, it } from 'vitest';
import { NON_PROGRAM_VARIABLES, parseEnvExample, readRepoFile, settingsVariables } from './deploy-files.js';

const settingsSource = readRepoFile('packages/server/src/platform/settings.ts');
const read = settingsVariables(settingsSource);
const entries = parseEnvExample();
const documented = entries.map((entry) => entry.name);

describe('variables read by settings.ts', () => {
  it('are found by the extraction (guards the regular expressions themselves)', () => {
    for (const name of [
      'SVC_DATA_DIR',
      'SVC_FRONTEND_PORT',
      'SVC_PLAY_AGENT_BIND_HOST',
      'PLAY_AGENT_LISTEN',
    ]) {
      expect(read.has(name), name).toBe(true);
    }
    expect(read.size).toBeGreaterThanOrEqual(30);
  });

  it('extraction sees env.NAME, env[...], helper arguments and named constants', () => {
    const sample = [
      "const a = env.SVC_ALPHA_ONE ?? 'x';",
      "const b = env['SVC_BETA_TWO'];",
      "const c = port(env, 'SVC_GAMMA_PORT', 1);",
      "const d = httpUrl('PLAY_AGENT_DELTA_URL', nonEmpty(x));",
      "const E = 'SVC_EPSILON_DIR'; const e = env[E];",
      "const f = `SVC_${name}_PORT`; const g = 'svc-play-agent';",
    ].join('\n');
    expect([...settingsVariables(sample)].sort()).toEqual([
      'PLAY_AGENT_DELTA_URL',
      'SVC_ALPHA_ONE',
      'SVC_BETA_TWO',
      'SVC_EPSILON_DIR',
      'SVC_GAMMA_PORT',
    ]);
  });
});

describe('.env.example', () => {
  it('lists each variable once', () => {
    expect(documented.length).toBe(new Set(documented).size);
  });

  it('documents every variable settings.ts reads', () => {
    const missing = [...read].filter((name) => !documented.includes(name));
    expect(missing).toEqual([]);
  });

  it('holds only variables settings.ts reads, plus the compose and test ones', () => {
    const unknown = documented.filter((name) => !read.has(name) && !NON_PROGRAM_VARIABLES.includes(name));
    expect(unknown).toEqual([]);
    for (const name of NON_PROGRAM_VARIABLES) expect(documented, name).toContain(name);
  });

  it('describes every variable in one or two comment lines right above it', () => {
    for (const entry of entries) {
      expect(entry.description.length, entry.name).toBeGreaterThanOrEqual(1);
      expect(entry.description.length, entry.name).toBeLessThanOrEqual(2);
      expect(entry.description.join(' ').trim().length, entry.name).toBeGreaterThan(10);
    }
  });

  it('leaves every program variable commented out, so that the defaults apply', () => {
    const active = entries.filter((entry) => !entry.commentedOut).map((entry) => entry.name);
    expect(active).toEqual(['SVC_DB_PASSWORD']);
  });

  it('shows the same default ports as settings.ts', () => {
    const defaults = [...settingsSource.matchAll(/\bport\(\s*env\s*,\s*'([A-Z0-9_]+)'\s*,\s*(\d+)\s*\)/g)];
    expect(defaults.length).toBeGreaterThanOrEqual(7);
    for (const [, name, fallback] of defaults) {
      const entry = entries.find((candidate) => candidate.name === name);
      expect(entry?.value, name).toBe(fallback);
    }
  });

  it('contains no real secret', () => {
    for (const entry of entries.filter((candidate) => /TOKEN|PASSWORD/.test(candidate.name))) {
      expect(entry.value, entry.name).toBe('');
    }
  });
});
