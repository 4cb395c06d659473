import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AdminBrandingResponse,
  AuditLogResponse,
  BrandingResponse,
  ImageUploadResponse,
} from '@svc/contracts';
import { installBackends } from '../../../support/install-backends.js';
import { GIF_1X1, ICO, PNG_1X1, startSettingsInstall, type SettingsInstall } from './entrance.js';

const LOGO_ROUTE = /^\/api\/auth\/branding\/logo\/([0-9a-f]{64})\.(png|jpg|gif|webp|ico)$/;

// System name and logo (system configuration page), called through the console entrance like the web app.
describe.each(installBackends())('branding settings on $label', (backend) => {
  let env: SettingsInstall;
  let settingsToken: string;
  let userAdminToken: string;

  const branding = async () => {
    const answer = await env.api<BrandingResponse>('GET', '/api/auth/branding');
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const upload = async (bytes: Buffer) => {
    const answer = await env.api<ImageUploadResponse>('POST', '/api/config/uploads/image', {
      admin: env.adminToken,
      raw: bytes,
      headers: { 'content-type': 'image/png' },
    });
    expect(answer.status).toBe(201);
    return answer.body;
  };
  const setLogo = (logo: unknown, token = env.adminToken) =>
    env.api<AdminBrandingResponse>('PUT', '/api/auth/admin/branding/logo', { admin: token, body: { logo } });
  const audit = async (action: string) => {
    const answer = await env.admin<AuditLogResponse>('GET', `/api/auth/admin/audit-log?action=${action}`);
    expect(answer.status).toBe(200);
    return answer.body.items;
  };

  beforeAll(async () => {
    env = await startSettingsInstall(backend.env);
    await env.createUser('settings.admin', { permissions: ['settings'] });
    await env.createUser('user.admin', { permissions: ['user'] });
    settingsToken = await env.login('settings.admin', 'console');
    userAdminToken = await env.login('user.admin', 'console');
  });

  afterAll(async () => {
    await env?.stop();
    await backend.cleanup();
  });

  describe('system name', () => {
    it('defaults to SVC Media and is shown before sign-in', async () => {
      expect(await branding()).toEqual({ systemName: 'SVC Media', logoUrl: null, webPlayerEnabled: true });
      const admin = await env.admin<AdminBrandingResponse>('GET', '/api/auth/admin/branding');
      expect(admin.body).toEqual({
        systemName: 'SVC Media',
        logoUrl: null,
        logo: null,
        webPlayerEnabled: true,
      });
    });

    it('needs the settings permission', async () => {
      expect((await env.api('GET', '/api/auth/admin/branding')).status).toBe(401);
      const refused = await env.api('PUT', '/api/auth/admin/branding', {
        admin: userAdminToken,
        body: { systemName: 'Nope' },
      });
      expect(refused.status).toBe(403);
      const allowed = await env.api<AdminBrandingResponse>('PUT', '/api/auth/admin/branding', {
        admin: settingsToken,
        body: { systemName: 'Delegated' },
      });
      expect(allowed.status).toBe(200);
      expect(allowed.body.systemName).toBe('Delegated');
    });

    it('is trimmed, 1 to 128 characters, and applies to the next request', async () => {
      const saved = await env.admin<AdminBrandingResponse>('PUT', '/api/auth/admin/branding', {
        systemName: '  Family Cinema  ',
      });
      expect(saved.status).toBe(200);
      expect(saved.body.systemName).toBe('Family Cinema');
      // Immediate: the very next public request shows it.
      expect((await branding()).systemName).toBe('Family Cinema');

      const longest = 'n'.repeat(128);
      expect((await env.admin('PUT', '/api/auth/admin/branding', { systemName: longest })).status).toBe(200);
      expect((await branding()).systemName).toBe(longest);
      for (const systemName of ['n'.repeat(129), '', '    ']) {
        const refused = await env.admin('PUT', '/api/auth/admin/branding', { systemName });
        expect(refused.status, JSON.stringify(systemName)).toBe(400);
        expect(refused.error?.code).toBe('VALIDATION_FAILED');
      }
      expect(
        (await env.admin('PUT', '/api/auth/admin/branding', { systemName: 'x', logoUrl: 'y' })).status,
      ).toBe(400);
      expect((await branding()).systemName).toBe(longest);

      await env.admin('PUT', '/api/auth/admin/branding', { systemName: '家庭影院 🎬' });
      expect((await branding()).systemName).toBe('家庭影院 🎬');
      const records = await audit('settings.branding');
      expect(records[0]).toMatchObject({
        action: 'settings.branding',
        actorName: 'root',
        targetType: 'setting',
        targetId: 'branding',
        details: { before: { systemName: longest }, after: { systemName: '家庭影院 🎬' } },
      });
    });
  });

  describe('logo', () => {
    it('takes an upload only when saved, then serves it publicly by its content hash', async () => {
      const before = await branding();
      const uploaded = await upload(PNG_1X1);
      // Uploading alone changes nothing.
      expect(await branding()).toEqual(before);
      expect(before.logoUrl).toBeNull();

      const saved = await setLogo({ kind: 'upload', uploadId: uploaded.id });
      expect(saved.status).toBe(200);
      expect(saved.body.logo).toEqual({
        kind: 'upload',
        contentType: 'image/png',
        size: PNG_1X1.length,
        sha256: uploaded.sha256,
      });
      const { logoUrl } = await branding();
      expect(logoUrl).toBe(`/api/auth/branding/logo/${uploaded.sha256}.png`);
      expect(saved.body.logoUrl).toBe(logoUrl);

      // Public (no token), the sniffed type, never sniffed by the browser, cached by its hash.
      const image = await env.api('GET', logoUrl!);
      expect(image.status).toBe(200);
      expect(image.raw).toEqual(PNG_1X1);
      expect(image.headers['content-type']).toBe('image/png');
      expect(image.headers['x-content-type-options']).toBe('nosniff');
      expect(image.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(image.headers.etag).toBe(`"${uploaded.sha256}"`);
      expect(image.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
      const again = await env.api('GET', logoUrl!, { headers: { 'if-none-match': `"${uploaded.sha256}"` } });
      expect(again.status).toBe(304);
      expect(again.raw.length).toBe(0);

      // The upload was consumed: the config service no longer has it, and it cannot be saved twice.
      expect(
        (await env.internal('config', 'GET', `/api/config/internal/uploads/${uploaded.id}`)).status,
      ).toBe(404);
      const reused = await setLogo({ kind: 'upload', uploadId: uploaded.id });
      expect(reused.status).toBe(404);
      expect(reused.error?.code).toBe('UPLOAD_NOT_FOUND');
      expect((await branding()).logoUrl).toBe(logoUrl);

      const records = await audit('settings.branding-logo');
      expect(records[0]).toMatchObject({
        details: { before: null, after: { kind: 'upload', sha256: uploaded.sha256 }, uploadId: uploaded.id },
      });
    });

    it('replaces the image at once: a new address, the old one gone', async () => {
      const old = (await branding()).logoUrl!;
      const gif = await upload(GIF_1X1);
      expect(gif.contentType).toBe('image/gif');
      expect((await setLogo({ kind: 'upload', uploadId: gif.id })).status).toBe(200);
      const current = (await branding()).logoUrl!;
      expect(current).toBe(`/api/auth/branding/logo/${gif.sha256}.gif`);
      expect((await env.api('GET', old)).status).toBe(404);
      const served = await env.api('GET', current);
      expect(served.headers['content-type']).toBe('image/gif');
      expect(served.raw).toEqual(GIF_1X1);
      // The right hash with another extension, or an unknown hash: 404; malformed names: 400.
      expect((await env.api('GET', current.replace('.gif', '.png'))).status).toBe(404);
      expect((await env.api('GET', `/api/auth/branding/logo/${'0'.repeat(64)}.gif`)).status).toBe(404);
      expect((await env.api('GET', '/api/auth/branding/logo/..%2f..%2fetc%2fpasswd')).status).toBe(400);

      const ico = await upload(ICO);
      await setLogo({ kind: 'upload', uploadId: ico.id });
      const icon = await env.api('GET', (await branding()).logoUrl!);
      expect(icon.headers['content-type']).toBe('image/x-icon');
      expect((await branding()).logoUrl).toMatch(LOGO_ROUTE);
    });

    it('takes an http(s) address instead, or none', async () => {
      const stored = (await branding()).logoUrl!;
      const byUrl = await setLogo({ kind: 'url', url: 'https://cdn.example.com/brand/logo.png' });
      expect(byUrl.status).toBe(200);
      expect(byUrl.body.logo).toEqual({ kind: 'url', url: 'https://cdn.example.com/brand/logo.png' });
      expect((await branding()).logoUrl).toBe('https://cdn.example.com/brand/logo.png');
      // The stored image is no longer served.
      expect((await env.api('GET', stored)).status).toBe(404);

      for (const url of [
        'javascript:alert(1)',
        'data:image/png;base64,AAAA',
        'ftp://example.com/logo.png',
        'https://user:secret@example.com/logo.png',
        '/relative/logo.png',
        `https://example.com/${'a'.repeat(2048)}`,
      ]) {
        const refused = await setLogo({ kind: 'url', url });
        expect(refused.status, url).toBe(400);
      }
      expect((await setLogo({ kind: 'upload', uploadId: 'not-a-uuid' })).status).toBe(400);
      const unknown = await setLogo({ kind: 'upload', uploadId: '00000000-0000-4000-8000-000000000000' });
      expect(unknown.status).toBe(404);
      expect(unknown.error?.code).toBe('UPLOAD_NOT_FOUND');
      expect((await branding()).logoUrl).toBe('https://cdn.example.com/brand/logo.png');

      expect((await setLogo(null, userAdminToken)).status).toBe(403);
      const removed = await setLogo(null, settingsToken);
      expect(removed.status).toBe(200);
      expect(removed.body.logo).toBeNull();
      expect((await branding()).logoUrl).toBeNull();
      // The name is untouched by logo changes.
      expect((await branding()).systemName).toBe('家庭影院 🎬');
    });
  });
});
