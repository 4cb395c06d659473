import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CdnManualStore } from '../../src/services/play-agent/cdn/cdn-manual-store.js';

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const newStore = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-cdn-manual-'));
  folders.push(dir);
  return { dir, store: CdnManualStore.forNode(dir, 'node-pa-1') };
};

describe('CdnManualStore', () => {
  it('keeps the manual addresses of each host, leaving out hosts without any', async () => {
    const { store } = newStore();
    expect(await store.load()).toEqual([]);
    await Promise.all([
      store.save([
        { host: 'cdn.example:8443', scheme: 'https', preferredIps: ['1.2.3.4'], candidateIps: [] },
      ]),
      store.save([
        { host: 'cdn.example:8443', scheme: 'https', preferredIps: ['1.2.3.5'], candidateIps: ['::1'] },
        { host: 'other.example', scheme: 'http', preferredIps: [], candidateIps: [] },
      ]),
    ]);
    // Writes run one after another: the last one wins.
    expect(await store.load()).toEqual([
      { host: 'cdn.example:8443', scheme: 'https', preferredIps: ['1.2.3.5'], candidateIps: ['::1'] },
    ]);
  });

  it('sets a damaged file aside and reports it', async () => {
    const { dir, store } = newStore();
    await store.save([{ host: 'cdn.example', scheme: 'https', preferredIps: ['1.2.3.4'], candidateIps: [] }]);
    writeFileSync(store.path, '{"hosts":[{"host":"cdn.example","preferredIps":["not an ip"]}]}');
    await expect(store.load()).rejects.toThrow(/set aside/);
    expect(readdirSync(path.join(dir, 'play-agent')).some((name) => name.includes('.damaged-'))).toBe(true);
    expect(await store.load()).toEqual([]);
  });
});
