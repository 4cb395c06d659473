import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IMAGE_UPLOAD_MAX_BYTES,
  sniffImageType,
  type BrandingResponse,
  type ImageUploadResponse,
} from '@svc/contracts';
import { ImageUploadsRepository } from '../../../../src/services/config/uploads/image-uploads.repository.js';
import {
  IMAGE_UPLOAD_RETENTION_MS,
  IMAGE_UPLOADS_KEPT,
  ImageUploadsService,
} from '../../../../src/services/config/uploads/image-uploads.service.js';
import { configMigrations } from '../../../../src/services/config/migrations/index.js';
import type { ConfigDatabase } from '../../../../src/services/config/config.db.js';
import { installBackends } from '../../../support/install-backends.js';
import { testBackends } from '../../../support/databases.js';
import { ManualClock } from '../../user/support.js';
import {
  GIF_1X1,
  ICO,
  JPEG,
  PNG_1X1,
  SVG,
  WEBP,
  multipart,
  pngOfSize,
  startSettingsInstall,
  type SettingsInstall,
} from '../../user/settings/entrance.js';

describe('sniffImageType: the type comes from the first bytes only', () => {
  it.each([
    ['PNG', PNG_1X1, 'image/png'],
    ['JPEG', JPEG, 'image/jpeg'],
    ['GIF89a', GIF_1X1, 'image/gif'],
    ['GIF87a', Buffer.from('GIF87a\x01\x00\x01\x00', 'latin1'), 'image/gif'],
    ['WebP', WEBP, 'image/webp'],
    ['ICO', ICO, 'image/x-icon'],
  ])('recognises %s', (_name, bytes, type) => {
    expect(sniffImageType(bytes)).toBe(type);
  });

  it.each([
    ['SVG', SVG],
    ['SVG without an XML declaration', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['HTML', Buffer.from('<!doctype html><script>alert(1)</script>')],
    ['BMP', Buffer.from('BM\x3a\x00\x00\x00', 'latin1')],
    ['a cursor (ICO type 2)', Buffer.concat([Buffer.from([0, 0, 2, 0, 1, 0]), Buffer.alloc(16)])],
    ['an icon header without its entry', Buffer.from([0, 0, 1, 0, 1, 0, 16, 16])],
    ['an icon with no image', Buffer.concat([Buffer.from([0, 0, 1, 0, 0, 0]), Buffer.alloc(16)])],
    ['a RIFF that is not WebP (WAVE)', Buffer.from('RIFF\x1a\x00\x00\x00WAVEfmt ', 'latin1')],
    ['a truncated PNG signature', PNG_1X1.subarray(0, 7)],
    ['nothing', Buffer.alloc(0)],
    ['a PNG signature late in the file', Buffer.concat([Buffer.from('x'), PNG_1X1])],
  ])('refuses %s', (_name, bytes) => {
    expect(sniffImageType(bytes)).toBeNull();
  });
});

describe.each(testBackends())('image uploads are pruned on $label', (backend) => {
  afterAll(() => backend.cleanup());

  it('keeps an unsaved upload 24 hours, then forgets it (pruned by uploads.prune); at most 20 are kept', async () => {
    const database = await backend.open<ConfigDatabase>('svc_config', configMigrations);
    const clock = new ManualClock();
    const repository = new ImageUploadsRepository(database.db);
    const uploads = new ImageUploadsService(repository, clock);

    const first = await uploads.store(PNG_1X1, 'user-1');
    expect(Date.parse(first.expiresAt) - Date.parse(first.createdAt)).toBe(IMAGE_UPLOAD_RETENTION_MS);
    clock.advance(IMAGE_UPLOAD_RETENTION_MS - 1000);
    expect((await uploads.get(first.id)).data).toEqual(PNG_1X1);
    expect(await uploads.prune()).toBe(0);
    const second = await uploads.store(GIF_1X1, 'user-1');

    clock.advance(1000);
    // Expired: gone for the logo save at once, deleted at the next run of the task.
    await expect(uploads.get(first.id)).rejects.toMatchObject({ statusCode: 404 });
    expect(await uploads.prune()).toBe(1);
    expect((await repository.list()).map((row) => row.id)).toEqual([second.id]);

    for (let index = 0; index < IMAGE_UPLOADS_KEPT + 2; index += 1) {
      clock.advance(1);
      await uploads.store(pngOfSize(100 + index), null);
    }
    const kept = await repository.list();
    expect(kept).toHaveLength(IMAGE_UPLOADS_KEPT);
    expect(kept.map((row) => row.size)).not.toContain(100);
    expect(kept.map((row) => row.id)).not.toContain(second.id);
    await database.close();
  });
});

describe.each(installBackends())(
  'POST /api/config/uploads/image through the entrance on $label',
  (backend) => {
    let env: SettingsInstall;
    let settingsToken: string;
    let userToken: string;

    const upload = (bytes: Buffer | Readable, type: string, token = env.adminToken) =>
      env.api<ImageUploadResponse>('POST', '/api/config/uploads/image', {
        admin: token,
        raw: bytes,
        headers: { 'content-type': type },
      });

    beforeAll(async () => {
      env = await startSettingsInstall(backend.env);
      await env.createUser('settings.admin', { permissions: ['settings'] });
      await env.createUser('user.admin', { permissions: ['user'] });
      settingsToken = await env.login('settings.admin', 'console');
      userToken = await env.login('user.admin', 'console');
    });

    afterAll(async () => {
      await env?.stop();
      await backend.cleanup();
    });

    it('needs the settings permission', async () => {
      expect((await upload(PNG_1X1, 'image/png', '')).status).toBe(401);
      const refused = await upload(PNG_1X1, 'image/png', userToken);
      expect(refused.status).toBe(403);
      expect((await upload(PNG_1X1, 'image/png', settingsToken)).status).toBe(201);
    });

    it('stores the sniffed type, whatever the header claims, and changes nothing by itself', async () => {
      const png = await upload(PNG_1X1, 'image/png');
      expect(png.status).toBe(201);
      expect(png.body).toMatchObject({ contentType: 'image/png', size: PNG_1X1.length });
      expect(png.body.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(Date.parse(png.body.expiresAt) - Date.parse(png.body.createdAt)).toBe(24 * 60 * 60 * 1000);

      // JPEG bytes announced as PNG are a JPEG; bytes sent as application/octet-stream are sniffed too.
      expect((await upload(JPEG, 'image/png')).body.contentType).toBe('image/jpeg');
      expect((await upload(GIF_1X1, 'application/octet-stream')).body.contentType).toBe('image/gif');
      expect((await upload(WEBP, 'image/webp')).body.contentType).toBe('image/webp');
      expect((await upload(ICO, 'image/vnd.microsoft.icon')).body.contentType).toBe('image/x-icon');

      const form = multipart('file', PNG_1X1);
      const fromForm = await upload(form.body, form.type);
      expect(fromForm.status).toBe(201);
      expect(fromForm.body.sha256).toBe(png.body.sha256);
      // The field "file" without a file name (a plain form field) carries the same bytes unchanged.
      const field = Buffer.concat([
        Buffer.from(`--b\r\nContent-Disposition: form-data; name="file"\r\n\r\n`),
        PNG_1X1,
        Buffer.from(`\r\n--b--\r\n`),
      ]);
      const fromField = await upload(field, 'multipart/form-data; boundary=b');
      expect(fromField.status).toBe(201);
      expect(fromField.body.sha256).toBe(png.body.sha256);

      // The service keeps the bytes for the logo save; the branding has not changed.
      const stored = await env.internal('config', 'GET', `/api/config/internal/uploads/${png.body.id}`);
      expect(stored.status).toBe(200);
      expect(stored.headers['content-type']).toBe('image/png');
      expect(stored.raw).toEqual(PNG_1X1);
      expect((await env.api<BrandingResponse>('GET', '/api/auth/branding')).body.logoUrl).toBeNull();
    });

    it('refuses SVG, markup and anything else that is not a known image', async () => {
      const svg = await upload(SVG, 'image/svg+xml');
      expect(svg.status).toBe(415);
      expect(svg.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
      expect(svg.error?.message).toMatch(/SVG/);
      expect(svg.error?.details).toEqual({
        allowed: ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/x-icon'],
      });
      // HTML announced as a PNG.
      const html = await upload(Buffer.from('<html><script>alert(1)</script></html>'), 'image/png');
      expect(html.status).toBe(415);
      // A real PNG announced as something that is not an image.
      for (const type of ['text/plain', 'application/json', 'text/html']) {
        const answer = await upload(PNG_1X1, type);
        expect(answer.status, type).toBe(415);
        expect(answer.error?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      }
      const noFile = multipart('picture', PNG_1X1);
      expect((await upload(noFile.body, noFile.type)).status).toBe(400);
      // A field whose file name is "file" is not the field "file"; a body without the boundary holds no field.
      const trick = Buffer.from(
        `--b\r\nContent-Disposition: form-data; name="x"; filename="file"\r\n\r\nabc\r\n--b--\r\n`,
      );
      for (const body of [trick, Buffer.from('no boundary at all')]) {
        const answer = await upload(body, 'multipart/form-data; boundary=b');
        expect(answer.status).toBe(400);
        expect(answer.error?.code).toBe('VALIDATION_FAILED');
      }
      const empty = await upload(Buffer.alloc(0), 'image/png');
      expect(empty.status).toBe(400);
      expect(empty.error?.code).toBe('VALIDATION_FAILED');
    });

    it('admits exactly 2 MB and answers 413 with the error body above it, declared or streamed', async () => {
      const limit = IMAGE_UPLOAD_MAX_BYTES;
      expect(limit).toBe(2 * 1024 * 1024);
      const exact = await upload(pngOfSize(limit), 'image/png');
      expect(exact.status).toBe(201);
      expect(exact.body.size).toBe(limit);

      const over = await upload(pngOfSize(limit + 1), 'image/png');
      expect(over.status).toBe(413);
      expect(over.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limitBytes: limit } });

      // No Content-Length (chunked): refused while streaming, as soon as the limit is passed.
      async function* chunks(total: number) {
        const chunk = pngOfSize(64 * 1024);
        for (let sent = 0; sent < total; sent += chunk.length) yield chunk;
      }
      const streamed = await upload(Readable.from(chunks(3 * 1024 * 1024)), 'image/png');
      expect(streamed.status).toBe(413);
      expect(streamed.error?.code).toBe('PAYLOAD_TOO_LARGE');

      // Well under the console entrance's 20 MB: still the route's own 2 MB limit.
      const big = await upload(pngOfSize(19 * 1024 * 1024), 'image/png');
      expect(big.status).toBe(413);
      expect(big.error?.code).toBe('PAYLOAD_TOO_LARGE');

      const form = multipart('file', pngOfSize(limit + 1));
      const overInForm = await upload(form.body, form.type);
      expect(overInForm.status).toBe(413);
      expect(overInForm.error?.code).toBe('PAYLOAD_TOO_LARGE');

      // The service still answers normally afterwards.
      expect((await upload(PNG_1X1, 'image/png')).status).toBe(201);
    });

    it('keeps the stored bytes away from the public API', async () => {
      const png = await upload(PNG_1X1, 'image/png');
      const direct = await env.api('GET', `/api/config/internal/uploads/${png.body.id}`, {
        admin: env.adminToken,
      });
      expect(direct.status).toBe(404);
      const noToken = await fetch(`${env.install.url('config')}/api/config/internal/uploads/${png.body.id}`);
      expect(noToken.status).toBeGreaterThanOrEqual(401);
      expect(noToken.status).toBeLessThan(404);
    });
  },
);
