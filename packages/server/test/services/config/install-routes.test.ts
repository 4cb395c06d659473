// Routes of node installation: GET /api/config/nodes/install/{token}/{kind} and the node binary
// (GET /api/config/binaries/{service}?token=, GET /api/config/binaries/status), directly on the config service
// and through the console entrance (frontend → gateway).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, type Identity } from '@svc/contracts';
import { encodeIdentity } from '../../../src/platform/http/route-auth.js';
import { configComponentFactory, type ConfigParts } from '../../../src/services/config/config.component.js';
import { seedWorkerNode } from '../../../src/services/config/install/install.repository.js';
import { createFrontendComponent } from '../../../src/services/frontend/frontend.component.js';
import { createGatewayComponent } from '../../../src/services/gateway/gateway.component.js';
import { createUserComponent } from '../../../src/services/user/user.component.js';
import { injectInto, injectJson } from '../../support/inject.js';
import { installBackends } from '../../support/install-backends.js';
import { startTestInstall, type TestInstall } from '../../support/runtime.js';

const INVALID = '# invalid token\n';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

describe.each(installBackends())('node installation routes on $label', (backend) => {
  let install: TestInstall;
  let parts: ConfigParts;
  const binariesDir = mkdtempSync(path.join(tmpdir(), 'svc-binaries-'));
  const tokens: Record<string, { nodeToken: string; registryToken: string }> = {};

  const get = async (
    component: 'config' | 'frontend',
    url: string,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const response = await injectInto(install, component, { method: 'GET', url, headers });
    const body = response.raw;
    return { status: response.status, headers: response.headers, body, text: body.toString('utf8') };
  };
  const direct = (url: string, headers?: Record<string, string>) => get('config', url, headers);
  const entrance = (url: string) => get('frontend', url);
  const admin = (permissions: Identity['permissions'], role: Identity['role'] = 'user') => ({
    'x-svc-service-token': install.context.serviceToken,
    'x-svc-identity': encodeIdentity({
      userId: '00000000-0000-4000-8000-000000000001',
      username: 'console',
      role,
      permissions,
      tokenKind: 'admin',
      tokenId: 'test',
      clientIp: '127.0.0.1',
    }),
  });

  beforeAll(async () => {
    install = await startTestInstall(
      [
        configComponentFactory({ expose: (exposed) => (parts = exposed) }),
        createUserComponent,
        createGatewayComponent,
        createFrontendComponent,
      ],
      backend.env,
      {
        env: {
          SVC_BINARIES_DIR: binariesDir,
          SVC_NODE_IMAGE: 'registry.example.com/svc-media:0.1.0',
          SVC_NODE_IMAGE_FFMPEG: 'registry.example.com/svc-media:0.1.0-ffmpeg',
        },
      },
    );
    const db = parts.database.db;
    tokens.player = await seedWorkerNode(db, {
      nodeId: 'node-route-player',
      serviceType: 'svc-play-agent',
      name: 'Player $(id)',
      expectedHost: 'player.example.com',
      listenPort: 19091,
    });
    tokens.storage = await seedWorkerNode(db, {
      nodeId: 'node-route-storage',
      serviceType: 'svc-control-storage',
      name: 'Storage',
      expectedHost: '192.0.2.20',
    });
    tokens.disabled = await seedWorkerNode(db, {
      nodeId: 'node-route-disabled',
      serviceType: 'svc-play-agent',
      name: 'Disabled',
      disabled: true,
    });
    await db
      .updateTable('nodes')
      .set({ external_protocol: 'https', external_host: 'play.example.com', external_port: 8443 })
      .where('node_id', '=', 'node-route-player')
      .execute();
  });

  afterAll(async () => {
    await install?.stop();
    await backend.cleanup();
    rmSync(binariesDir, { recursive: true, force: true });
  });

  describe('install scripts', () => {
    it('answers a play-agent binary script with the node values and the credentials', async () => {
      const answer = await direct(`/api/config/nodes/install/${tokens.player!.nodeToken}/binary`);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.text.startsWith('#!/usr/bin/env bash\n')).toBe(true);
      expect(answer.text).toContain("readonly NODE_ID='node-route-player'");
      expect(answer.text).toContain("readonly NODE_NAME='Player $(id)'");
      expect(answer.text).toContain("readonly NODE_PORT_GENERATED='19091'");
      expect(answer.text).toContain("readonly ADVERTISE_HOST_GENERATED='player.example.com'");
      expect(answer.text).toContain("readonly PUBLIC_BASE_URL='https://play.example.com:8443'");
      expect(answer.text).toContain(`readonly REGISTRY_TOKEN='${tokens.player!.registryToken}'`);
      expect(answer.text).toContain(`readonly SERVICE_TOKEN='${install.context.serviceToken}'`);
      expect(answer.text).toContain(`readonly CONFIG_URL_GENERATED='${install.url('config')}'`);
      expect(answer.text).toContain("readonly WITH_FFMPEG='0'");
    });

    it('takes ffmpeg=true for play-agents: the host package, or the image variant', async () => {
      const binary = await direct(`/api/config/nodes/install/${tokens.player!.nodeToken}/binary?ffmpeg=true`);
      expect(binary.text).toContain("readonly WITH_FFMPEG='1'");
      const docker = await direct(`/api/config/nodes/install/${tokens.player!.nodeToken}/docker?ffmpeg=true`);
      expect(docker.text).toContain("readonly IMAGE_GENERATED='registry.example.com/svc-media:0.1.0-ffmpeg'");
      const plain = await direct(`/api/config/nodes/install/${tokens.player!.nodeToken}/docker`);
      expect(plain.text).toContain("readonly IMAGE_GENERATED='registry.example.com/svc-media:0.1.0'");
      // Storage nodes: ffmpeg=true changes nothing.
      const storage = await direct(
        `/api/config/nodes/install/${tokens.storage!.nodeToken}/binary?ffmpeg=true`,
      );
      expect(storage.text).toContain("readonly WITH_FFMPEG='0'");
      expect(storage.text).toContain("readonly NODE_PORT_GENERATED='18084'");
    });

    it('keeps the credentials out of upgrade and uninstall scripts', async () => {
      for (const kind of ['uninstall', 'upgrade-binary', 'upgrade-docker']) {
        const answer = await direct(`/api/config/nodes/install/${tokens.storage!.nodeToken}/${kind}`);
        expect(answer.status, kind).toBe(200);
        expect(answer.text).not.toContain(install.context.serviceToken);
        expect(answer.text).not.toContain(tokens.storage!.registryToken);
      }
    });

    it('offers binary-jdk to storage nodes only', async () => {
      expect((await direct(`/api/config/nodes/install/${tokens.storage!.nodeToken}/binary-jdk`)).status).toBe(
        200,
      );
      const player = await direct(`/api/config/nodes/install/${tokens.player!.nodeToken}/binary-jdk`);
      expect(player.status).toBe(403);
      expect(player.text).toBe(INVALID);
    });

    it('answers every invalid request with 403 and the one line # invalid token', async () => {
      const builtIn = (await parts.nodes.tokens('node-local-play-agent'))!.nodeToken!;
      const requests = [
        `/api/config/nodes/install/svc_nt_${'x'.repeat(43)}/binary`,
        '/api/config/nodes/install/not-a-token/binary',
        `/api/config/nodes/install/${tokens.player!.registryToken}/binary`,
        `/api/config/nodes/install/${tokens.player!.nodeToken}/unknown-kind`,
        `/api/config/nodes/install/${tokens.player!.nodeToken}/BINARY`,
        // Built-in nodes run under the standalone supervisor: never installed, upgraded or removed alone.
        `/api/config/nodes/install/${builtIn}/binary`,
        `/api/config/nodes/install/${builtIn}/uninstall`,
        // A disabled node may only be uninstalled.
        `/api/config/nodes/install/${tokens.disabled!.nodeToken}/binary`,
        `/api/config/nodes/install/${tokens.disabled!.nodeToken}/upgrade-binary`,
      ];
      for (const url of requests) {
        const answer = await direct(url);
        expect(answer.status, url).toBe(403);
        expect(answer.text, url).toBe(INVALID);
        expect(answer.headers['content-type'], url).toBe('text/plain; charset=utf-8');
      }
      expect((await direct(`/api/config/nodes/install/${tokens.disabled!.nodeToken}/uninstall`)).status).toBe(
        200,
      );
    });

    it('works through the console entrance as well', async () => {
      const script = await entrance(`/api/config/nodes/install/${tokens.player!.nodeToken}/uninstall`);
      expect(script.status).toBe(200);
      expect(script.text).toContain("readonly KIND='uninstall'");
      const invalid = await entrance(`/api/config/nodes/install/svc_nt_${'y'.repeat(43)}/binary`);
      expect(invalid.status).toBe(403);
      expect(invalid.text).toBe(INVALID);
    });
  });

  describe('node binaries', () => {
    const bytes = Buffer.concat([Buffer.from('\x7fELF'), Buffer.alloc(300_000, 7), Buffer.from('end')]);

    it('says that the config service provides no binary, and downloads answer 404', async () => {
      const status = await direct('/api/config/binaries/status', admin(['node']));
      expect(status.status).toBe(200);
      const body = JSON.parse(status.text) as Record<string, unknown>;
      expect(body).toMatchObject({
        provided: false,
        version: null,
        file: 'svc-node-linux-x64',
        dockerImage: 'registry.example.com/svc-media:0.1.0',
      });
      expect(body.message).toContain('provides no binary');
      const download = await direct(`/api/config/binaries/svc-play-agent?token=${tokens.player!.nodeToken}`);
      expect(download.status).toBe(404);
      expect(JSON.parse(download.text)).toMatchObject({ error: { code: 'BINARY_NOT_AVAILABLE' } });
    });

    it('asks for a token, and refuses tokens of another service type or of nobody', async () => {
      const missing = await direct('/api/config/binaries/svc-play-agent');
      expect(missing.status).toBe(401);
      expect(JSON.parse(missing.text)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
      expect((await direct('/api/config/binaries/svc-play-agent?token=')).status).toBe(401);
      const other = await direct(`/api/config/binaries/svc-play-agent?token=${tokens.storage!.nodeToken}`);
      expect(other.status).toBe(403);
      expect(JSON.parse(other.text)).toMatchObject({ error: { code: 'FORBIDDEN' } });
      const unknown = await direct(`/api/config/binaries/svc-control-storage?token=svc_nt_${'z'.repeat(43)}`);
      expect(unknown.status).toBe(403);
      const registry = await direct(
        `/api/config/binaries/svc-play-agent?token=${tokens.player!.registryToken}`,
      );
      expect(registry.status).toBe(403);
      const service = await direct(`/api/config/binaries/svc-media?token=${tokens.player!.nodeToken}`);
      expect(service.status).toBe(404);
    });

    it('streams the binary with its length and version, to either service type', async () => {
      mkdirSync(binariesDir, { recursive: true });
      writeFileSync(path.join(binariesDir, 'svc-node-linux-x64'), bytes);
      writeFileSync(path.join(binariesDir, 'VERSION'), '0.1.1\n');
      const sha = createHash('sha256').update(bytes).digest('hex');
      writeFileSync(path.join(binariesDir, 'svc-node-linux-x64.sha256'), `${sha}  svc-node-linux-x64\n`);
      for (const [service, token] of [
        ['svc-play-agent', tokens.player!.nodeToken],
        ['svc-control-storage', tokens.storage!.nodeToken],
      ] as const) {
        const answer = await direct(`/api/config/binaries/${service}?token=${token}`);
        expect(answer.status).toBe(200);
        expect(answer.headers['content-type']).toBe('application/octet-stream');
        expect(answer.headers['content-length']).toBe(String(bytes.length));
        expect(answer.headers['x-svc-binary-version']).toBe('0.1.1');
        expect(answer.body.equals(bytes)).toBe(true);
      }
      const status = JSON.parse(
        (await direct('/api/config/binaries/status', admin(['node']))).text,
      ) as Record<string, unknown>;
      expect(status).toMatchObject({
        provided: true,
        version: '0.1.1',
        sizeBytes: bytes.length,
        sha256: sha,
      });
      // Through the console entrance too.
      const viaEntrance = await entrance(
        `/api/config/binaries/svc-play-agent?token=${tokens.player!.nodeToken}`,
      );
      expect(viaEntrance.status).toBe(200);
      expect(viaEntrance.body.equals(bytes)).toBe(true);
    });

    it('keeps the status to console accounts with the node permission', async () => {
      expect((await direct('/api/config/binaries/status')).status).toBe(401);
      expect((await direct('/api/config/binaries/status', admin(['settings']))).status).toBe(403);
      expect((await direct('/api/config/binaries/status', admin([...ALL_PERMISSIONS], 'admin'))).status).toBe(
        200,
      );
      expect((await entrance('/api/config/binaries/status')).status).toBe(401);
    });
  });

  describe('container image setting', () => {
    const SETTING = '/api/config/system-settings/node-image';
    const put = (body: unknown, headers: Record<string, string>) =>
      injectJson<Record<string, unknown>>(install, 'config', { method: 'PUT', url: SETTING, headers, body });
    const script = async (query = '') =>
      (await direct(`/api/config/nodes/install/${tokens.player!.nodeToken}/docker${query}`)).text;

    it('names the stored image in the generated container script; null returns to the environment', async () => {
      const initial = await direct(SETTING, admin(['node']));
      expect(JSON.parse(initial.text)).toEqual({
        image: 'registry.example.com/svc-media:0.1.0',
        imageFfmpeg: 'registry.example.com/svc-media:0.1.0-ffmpeg',
        stored: { image: null, imageFfmpeg: null },
        defaults: {
          image: 'registry.example.com/svc-media:0.1.0',
          imageFfmpeg: 'registry.example.com/svc-media:0.1.0-ffmpeg',
        },
        updatedAt: null,
      });
      expect((await put({ image: 'a b', imageFfmpeg: null }, admin(['node']))).status).toBe(400);
      expect((await put({ image: 'x:1' }, admin(['node']))).status).toBe(400);
      expect((await put({ image: 'x:1', imageFfmpeg: null }, admin(['settings']))).status).toBe(403);

      const saved = await put(
        { image: 'ghcr.io/example/svc-node:2.0', imageFfmpeg: 'ghcr.io/example/svc-node:2.0-ffmpeg' },
        admin(['node']),
      );
      expect(saved.status).toBe(200);
      expect(saved.body).toMatchObject({
        image: 'ghcr.io/example/svc-node:2.0',
        imageFfmpeg: 'ghcr.io/example/svc-node:2.0-ffmpeg',
      });
      expect(await script()).toContain("readonly IMAGE_GENERATED='ghcr.io/example/svc-node:2.0'");
      expect(await script('?ffmpeg=true')).toContain(
        "readonly IMAGE_GENERATED='ghcr.io/example/svc-node:2.0-ffmpeg'",
      );
      const status = JSON.parse(
        (await direct('/api/config/binaries/status', admin(['node']))).text,
      ) as Record<string, unknown>;
      expect(status).toMatchObject({ dockerImage: 'ghcr.io/example/svc-node:2.0' });

      // Only a plain image stored: it serves the ffmpeg variant too.
      await put({ image: 'ghcr.io/example/svc-node:3.0', imageFfmpeg: null }, admin(['node']));
      expect(await script('?ffmpeg=true')).toContain(
        "readonly IMAGE_GENERATED='ghcr.io/example/svc-node:3.0'",
      );

      const reset = await put({ image: null, imageFfmpeg: null }, admin(['node']));
      expect(reset.body).toMatchObject({ image: 'registry.example.com/svc-media:0.1.0' });
      expect(await script()).toContain("readonly IMAGE_GENERATED='registry.example.com/svc-media:0.1.0'");
    });
  });
});
