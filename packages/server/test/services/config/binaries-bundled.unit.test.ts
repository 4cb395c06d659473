// The node binary built with the program (dist/node-binary) is served when SVC_BINARIES_DIR holds none, so a
// new control plane installs worker nodes out of the box; an operator's binary in SVC_BINARIES_DIR wins.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BinariesService,
  bundledBinariesDir,
  NODE_BINARY_FILE,
} from '../../../src/services/config/install/binaries.service.js';
import type {
  InstallRepository,
  InstallTarget,
} from '../../../src/services/config/install/install.repository.js';

const TOKEN = 'node-token-of-a-play-agent';
const target = { nodeId: 'n1', serviceType: 'svc-play-agent', scope: 'EXTERNAL' } as InstallTarget;
const nodes = {
  findByNodeToken: (token: string) => Promise.resolve(token === TOKEN ? target : undefined),
} as unknown as InstallRepository;

function putBinary(directory: string, bytes: string, version: string): void {
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, NODE_BINARY_FILE), bytes);
  writeFileSync(path.join(directory, 'VERSION'), `${version}\n`);
}

describe('node binary served by the config service', () => {
  let root: string;
  let configured: string;
  let bundled: string;
  const service = () =>
    new BinariesService(nodes, {
      binariesDir: configured,
      bundledBinariesDir: bundled,
      controlVersion: '9.9.9',
      images: () => Promise.resolve({ image: 'svc-node:9.9.9', imageFfmpeg: 'svc-node:9.9.9-ffmpeg' }),
    });
  const download = async () => {
    const opened = await service().open('svc-play-agent', TOKEN);
    const bytes = await opened.handle.readFile('utf8');
    await opened.handle.close();
    return { bytes, version: opened.version };
  };

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'svc-binaries-'));
    configured = path.join(root, 'configured');
    bundled = path.join(root, 'dist', 'node-binary');
    mkdirSync(configured);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('serves the binary built with the program when SVC_BINARIES_DIR has none', async () => {
    putBinary(bundled, 'bundled-binary', '9.9.9');
    const status = await service().status();
    expect(status).toMatchObject({ provided: true, version: '9.9.9', sizeBytes: 'bundled-binary'.length });
    expect(status.message).toContain('built with this program');
    expect(await download()).toEqual({ bytes: 'bundled-binary', version: '9.9.9' });
  });

  it("prefers the operator's binary in SVC_BINARIES_DIR", async () => {
    putBinary(bundled, 'bundled-binary', '9.9.9');
    putBinary(configured, 'operator-binary', '9.9.10');
    const status = await service().status();
    expect(status).toMatchObject({ provided: true, version: '9.9.10' });
    expect(status.message).not.toContain('built with this program');
    expect(await download()).toEqual({ bytes: 'operator-binary', version: '9.9.10' });
  });

  it('reports none and refuses the download when neither folder has one', async () => {
    expect(await service().status()).toMatchObject({ provided: false, version: null });
    await expect(service().open('svc-play-agent', TOKEN)).rejects.toMatchObject({
      code: 'BINARY_NOT_AVAILABLE',
    });
  });

  it('looks beside the built program: dist/node-binary, where npm start and the image build put it', () => {
    const folder = bundledBinariesDir();
    expect(path.basename(folder)).toBe('node-binary');
    // From source this file lives in src/services/config/install; the bundle puts it in packages/server/dist.
    expect(path.dirname(folder)).toMatch(/src[\\/]services[\\/]config[\\/]install$|dist$/);
  });
});
