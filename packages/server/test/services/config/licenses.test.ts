import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ALL_PERMISSIONS, type Identity } from '@svc/contracts';
import { PRIVATE_KEY_FILE } from '../../../src/cli/license.js';
import type { Clock } from '../../../src/platform/cache/index.js';
import { encodeIdentity } from '../../../src/platform/http/route-auth.js';
import { createLogger } from '../../../src/platform/logger.js';
import { configComponentFactory, type ConfigParts } from '../../../src/services/config/config.component.js';
import { DeploymentRepository } from '../../../src/services/config/deployment/deployment.repository.js';
import {
  generatePublisherKeys,
  parsePrivateKey,
  parsePublicKey,
  signCode,
  signLease,
  verifyCode,
  type LeasePayload,
} from '../../../src/services/config/licenses/lease.js';
import { LicenseService } from '../../../src/services/config/licenses/license.service.js';
import { LicensesRepository } from '../../../src/services/config/licenses/licenses.repository.js';
import { CONSOLE_ADMIN, startConsoleInstall, type ConsoleInstall } from '../../support/console-install.js';
import { installBackends } from '../../support/install-backends.js';
import { startTestInstall, type TestInstall } from '../../support/runtime.js';
import { runLicenseCli } from './license-cli-run.js';

class ManualClock implements Clock {
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
}

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

interface Status {
  status: string;
  activated: boolean;
  edition: string;
  maxStorageNodes: number;
  maxPlayAgentNodes: number;
  validUntil: string | null;
  graceUntil: string | null;
  licenseId: string | null;
  installId: string;
  publicKeyConfigured: boolean;
  reason: string | null;
}

interface ErrorAnswer {
  error: { code: string; message: string; details?: { reason?: string } };
}

const DAY_MS = 24 * 60 * 60 * 1000;
const ADMIN = CONSOLE_ADMIN;
const HELPER = { username: 'helper', password: 'helper password 1' };
const LICENSE_ID = 'lic-test-main';
const logger = createLogger({ level: 'silent', component: 'test' });

/** Changes one byte of the decoded part `index` (1 = body, 2 = signature) and encodes it again. */
function flipByte(text: string, index: 1 | 2, at = 10): string {
  const parts = text.split('.');
  const part = parts.length - 3 + index;
  const bytes = Buffer.from(parts[part]!, 'base64url');
  bytes[at] = bytes[at]! ^ 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

/** Replaces the JSON body of a signed text, keeping the old signature. */
function rewriteBody(text: string, change: (body: Record<string, unknown>) => void): string {
  const parts = text.split('.');
  const index = parts.length - 2;
  const body = JSON.parse(Buffer.from(parts[index]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
  change(body);
  parts[index] = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  return parts.join('.');
}

describe.each(installBackends())('licences on $label', (backend) => {
  let control: ConsoleInstall;
  let install: TestInstall;
  let parts: ConfigParts;
  const clock = new ManualClock(Date.now());
  const other = generatePublisherKeys();
  const folder = mkdtempSync(path.join(tmpdir(), 'svc-licences-'));
  let keyFile: string;
  let publicKey: string;

  /** The publisher tool, as the publisher runs it (with the test's clock). */
  const svcLicense = async (args: string[]): Promise<string> => {
    const { code, stdout, stderr } = await runLicenseCli(args, () => clock.now());
    expect(stderr).toBe('');
    expect(code).toBe(0);
    return stdout.trim();
  };
  const newCode = (
    options: { edition?: string; storage?: number; playAgent?: number; extra?: string[] } = {},
  ) =>
    svcLicense([
      'code',
      '--key',
      keyFile,
      '--edition',
      options.edition ?? 'STANDALONE',
      '--max-storage',
      String(options.storage ?? 1),
      '--max-play-agent',
      String(options.playAgent ?? 2),
      '--days',
      '30',
      '--grace-days',
      '7',
      '--license-id',
      LICENSE_ID,
      ...(options.extra ?? []),
    ]);

  /** Through the console entrance (frontend → gateway → config), as the browser calls it. */
  const entrance = async <T = Record<string, unknown>>(
    method: 'GET' | 'POST',
    route: string,
    options: { body?: unknown; token?: string } = {},
  ): Promise<Answer<T>> => {
    const answer = await control.api<T>(method, route, { body: options.body, admin: options.token });
    return { status: answer.status, body: answer.body ?? ({} as T) };
  };

  /** A fresh console token (the tests move the clock past the 12-hour token lifetime). */
  const signIn = async (account = ADMIN): Promise<string> => {
    const login = await entrance<{ adminToken: string }>('POST', '/api/auth/login', {
      body: { ...account, client: 'console' },
    });
    expect(login.status).toBe(200);
    return login.body.adminToken;
  };

  const status = async () => {
    const answer = await entrance<Status>('GET', '/api/license/status');
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const capabilities = async () =>
    (
      await entrance<{ edition: string; deploymentMode: string; externalNodes: boolean }>(
        'GET',
        '/api/config/deployment/capabilities',
      )
    ).body;
  const activate = async (code: string, token?: string) =>
    entrance<Status & ErrorAnswer>('POST', '/api/license/activate', {
      body: { code },
      token: token ?? (await signIn()),
    });
  const upgrade = async (licenseId: string, lease: string, token?: string) =>
    entrance<Status & ErrorAnswer>('POST', `/api/admin/licenses/${licenseId}/edition`, {
      body: { lease },
      token: token ?? (await signIn()),
    });
  const auditLog = async (action: string) =>
    (
      await control.api<{
        items: {
          actorName: string;
          action: string;
          targetType: string;
          targetId: string;
          details: unknown;
        }[];
      }>('GET', `/api/auth/admin/audit-log?action=${action}`, { admin: await signIn() })
    ).body;

  beforeAll(async () => {
    // The publisher's key pair, made by the publisher tool.
    const keygen = await runLicenseCli(['keygen', '--out', folder]);
    expect(keygen.code).toBe(0);
    keyFile = path.join(folder, PRIVATE_KEY_FILE);
    publicKey = /^SVC_LICENSE_PUBLIC_KEY=(\S+)$/m.exec(keygen.stdout)?.[1] ?? '';

    control = await startConsoleInstall(backend.env, {
      clock,
      env: { SVC_LICENSE_PUBLIC_KEY: publicKey },
    });
    ({ install, config: parts } = control);
    // A console user with a menu permission, but not `license` (which only administrators hold).
    await control.createUser(HELPER.username, { ...HELPER, permissions: ['user', 'settings'] });
  });

  afterAll(async () => {
    await control?.stop();
    await backend.cleanup();
    rmSync(folder, { recursive: true, force: true });
  });

  it('answers NONE before any activation, on the public route without a token', async () => {
    expect(await status()).toMatchObject({
      status: 'NONE',
      activated: false,
      edition: 'STANDALONE',
      maxStorageNodes: 0,
      maxPlayAgentNodes: 0,
      validUntil: null,
      graceUntil: null,
      licenseId: null,
      installId: expect.stringMatching(/^inst-/) as string,
      publicKeyConfigured: true,
      reason: null,
    });
    expect(await parts.licenses.refresh()).toEqual({
      state: 'NONE',
      edition: 'STANDALONE',
      maxStorageNodes: 0,
      maxPlayAgentNodes: 0,
      validUntil: null,
      graceUntil: null,
    });
  });

  it('needs the console permission `license` (administrators only) for activation, refresh and upgrade', async () => {
    const code = await newCode();
    const helper = await signIn(HELPER);
    const calls = [
      ['/api/license/activate', { code }],
      ['/api/license/refresh', undefined],
      [`/api/admin/licenses/${LICENSE_ID}/edition`, { lease: 'svc-lease.v1.x.y' }],
    ] as const;
    for (const [route, body] of calls) {
      expect((await entrance('POST', route, { body })).status, route).toBe(401);
      expect((await entrance('POST', route, { body, token: helper })).status, route).toBe(403);
    }
    // The service checks the rule itself too (defence in depth): an identity without the key is refused.
    const identity: Identity = {
      userId: '00000000-0000-4000-8000-000000000001',
      username: 'helper',
      role: 'user',
      permissions: ALL_PERMISSIONS.filter((permission) => permission !== 'license'),
      tokenKind: 'admin',
      tokenId: 't',
      clientIp: '127.0.0.1',
    };
    const direct = await request(`${install.url('config')}/api/license/activate`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-svc-service-token': install.context.serviceToken,
        'x-svc-identity': encodeIdentity(identity),
      },
      body: JSON.stringify({ code }),
    });
    expect(direct.statusCode).toBe(403);
    await direct.body.dump();
    expect((await status()).status).toBe('NONE');
  });

  it('refuses tampered codes and codes of another publisher with 400 LICENSE_INVALID; nothing changes', async () => {
    const code = await newCode({ storage: 99, playAgent: 99 });
    const { codeId, lease } = verifyCode(code, parsePublicKey(publicKey));
    const inner = JSON.parse(Buffer.from(lease.split('.')[2]!, 'base64url').toString('utf8')) as LeasePayload;
    const tampered = {
      'one byte of the body': flipByte(code, 1),
      'one byte of the signature': flipByte(code, 2),
      'one character of the text': code.slice(0, 40) + (code[40] === 'A' ? 'B' : 'A') + code.slice(41),
      'a rewritten body': rewriteBody(code, (body) => (body.codeId = 'code-another')),
      'a tampered lease in a re-signed code': signCode(
        codeId,
        rewriteBody(lease, (body) => (body.maxStorageNodes = 1000)),
        other.privateKey,
      ),
      'a code of another publisher key': signCode(
        codeId,
        signLease(inner, other.privateKey),
        other.privateKey,
      ),
      'a lease instead of a code': lease,
      'a truncated code': code.slice(0, -3),
      'no code at all': 'hello',
    };
    const token = await signIn();
    for (const [what, text] of Object.entries(tampered)) {
      const answer = await activate(text, token);
      expect(answer.status, what).toBe(400);
      expect(answer.body.error.code, what).toBe('LICENSE_INVALID');
      expect(['format', 'signature', 'payload'], what).toContain(answer.body.error.details?.reason);
    }
    expect(await status()).toMatchObject({ status: 'NONE', activated: false, maxStorageNodes: 0 });
    // The genuine code was not used up by the refused attempts.
    expect((await activate(code, token)).status).toBe(200);
    // Leave the install without a licence again for the next test: remove what this one stored.
    await parts.database.db.deleteFrom('license_codes').execute();
    await parts.database.db.deleteFrom('licenses').execute();
    await parts.database.db.deleteFrom('license_audit_outbox').execute();
    expect((await status()).status).toBe('NONE');
  });

  it('activates a valid code: ACTIVE with the lease quotas, and an audit record', async () => {
    const code = await newCode({ storage: 3, playAgent: 5 });
    const answer = await activate(code);
    expect(answer.status).toBe(200);
    const validUntil = new Date(clock.now() + 30 * DAY_MS).toISOString();
    const graceUntil = new Date(clock.now() + 37 * DAY_MS).toISOString();
    const expected = {
      status: 'ACTIVE',
      activated: true,
      edition: 'STANDALONE',
      maxStorageNodes: 3,
      maxPlayAgentNodes: 5,
      validUntil,
      graceUntil,
      licenseId: LICENSE_ID,
      reason: null,
    };
    expect(answer.body).toMatchObject(expected);
    expect(await status()).toMatchObject(expected);
    expect(await parts.licenses.refresh()).toEqual({
      state: 'ACTIVE',
      edition: 'STANDALONE',
      maxStorageNodes: 3,
      maxPlayAgentNodes: 5,
      validUntil,
      graceUntil,
    });
    const refreshed = await entrance<Status>('POST', '/api/license/refresh', { token: await signIn() });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject(expected);
    const audit = await auditLog('license.activate');
    expect(audit.items[0]).toMatchObject({
      actorName: ADMIN.username,
      targetType: 'license',
      targetId: LICENSE_ID,
    });
  });

  it('refuses a code used before with 409 LICENSE_CODE_USED, also when two activations race', async () => {
    const code = await newCode({ storage: 3, playAgent: 5 });
    expect((await activate(code)).status).toBe(200);
    const again = await activate(code);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('LICENSE_CODE_USED');

    const racing = await newCode({ storage: 4, playAgent: 6 });
    const token = await signIn();
    const answers = await Promise.all([activate(racing, token), activate(racing, token)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(await status()).toMatchObject({ status: 'ACTIVE', maxStorageNodes: 4, maxPlayAgentNodes: 6 });
  });

  it('refuses codes for another install, another edition, or past their grace, with 409', async () => {
    const before = await status();
    const cases: [string, Promise<string>, string][] = [
      [
        'bound to another install',
        newCode({ extra: ['--install-id', 'inst-elsewhere'] }),
        'LICENSE_INSTALL_MISMATCH',
      ],
      [
        'for DISTRIBUTED on a STANDALONE install',
        newCode({ edition: 'DISTRIBUTED' }),
        'LICENSE_EDITION_MISMATCH',
      ],
    ];
    const realNow = clock.time;
    clock.time = realNow - 40 * DAY_MS;
    const expired = newCode();
    const expiredCode = await expired;
    clock.time = realNow;
    cases.push(['past its grace', Promise.resolve(expiredCode), 'LICENSE_EXPIRED']);
    for (const [what, code, error] of cases) {
      const answer = await activate(await code);
      expect(answer.status, what).toBe(409);
      expect(answer.body.error.code, what).toBe(error);
    }
    expect(await status()).toEqual(before);
    // Bound to this install: accepted.
    const bound = await activate(
      await newCode({ storage: 3, playAgent: 5, extra: ['--install-id', before.installId] }),
    );
    expect(bound.status).toBe(200);
    expect(bound.body).toMatchObject({ status: 'ACTIVE', maxStorageNodes: 3, maxPlayAgentNodes: 5 });
  });

  it('reads INVALID when the stored lease no longer verifies (changed in the database, or another key)', async () => {
    const stored = await parts.database.db
      .selectFrom('licenses')
      .selectAll()
      .where('id', '=', LICENSE_ID)
      .executeTakeFirstOrThrow();
    await parts.database.db
      .updateTable('licenses')
      .set({ lease: rewriteBody(stored.lease, (body) => (body.maxStorageNodes = 50)) })
      .where('id', '=', LICENSE_ID)
      .execute();
    expect(await status()).toMatchObject({ status: 'INVALID', reason: 'signature', maxStorageNodes: 0 });
    expect((await parts.licenses.refresh()).state).toBe('INVALID');
    await parts.database.db
      .updateTable('licenses')
      .set({ lease: stored.lease })
      .where('id', '=', LICENSE_ID)
      .execute();
    expect((await status()).status).toBe('ACTIVE');

    // The same database read by a service configured with another publisher key, or with none.
    const withKey = (key: ReturnType<typeof parsePublicKey> | null) =>
      new LicenseService({
        licenses: new LicensesRepository(parts.database.db),
        deployment: new DeploymentRepository(parts.database.db),
        publicKey: key,
        clock,
        audit: { record: async () => {} },
        logger,
      });
    expect(await withKey(other.publicKey).status()).toMatchObject({ status: 'INVALID', reason: 'signature' });
    expect(await withKey(other.publicKey).refresh()).toMatchObject({ state: 'INVALID', maxStorageNodes: 0 });
    const keyless = withKey(null);
    expect(await keyless.status()).toMatchObject({
      status: 'INVALID',
      reason: 'no-public-key',
      publicKeyConfigured: false,
    });
    await expect(keyless.activate(await newCode(), null, null)).rejects.toMatchObject({
      statusCode: 409,
      code: 'LICENSE_KEY_NOT_CONFIGURED',
    });
  });

  it('keeps an audit record queued while the user service cannot take it, and delivers it later', async () => {
    const repository = new LicensesRepository(parts.database.db);
    await repository.queueAudit(
      {
        actor: null,
        action: 'license.activate',
        targetType: 'license',
        targetId: LICENSE_ID,
        details: { deliveryCheck: true },
      },
      new Date(clock.now()),
    );
    const unreachable = new LicenseService({
      licenses: repository,
      deployment: new DeploymentRepository(parts.database.db),
      publicKey: parsePublicKey(publicKey),
      clock,
      audit: {
        record: async () => {
          throw new Error('connection refused');
        },
      },
      logger,
    });
    expect(await unreachable.deliverAudits()).toBe(0);
    expect(await repository.pendingAudits()).toMatchObject([
      { attempts: 1, entry: { action: 'license.activate', details: { deliveryCheck: true } } },
    ]);
    // What the task licenses.audit-delivery runs, with the real user service.
    expect(await parts.licenses.deliverAudits()).toBe(1);
    expect(await repository.pendingAudits()).toEqual([]);
    expect((await auditLog('license.activate')).items[0]).toMatchObject({
      targetId: LICENSE_ID,
      details: { deliveryCheck: true },
    });
  });

  it('upgrades STANDALONE to DISTRIBUTED with a signed edition-upgrade lease, with an audit record', async () => {
    expect(await capabilities()).toMatchObject({ edition: 'STANDALONE', deploymentMode: 'standalone' });
    const lease = await svcLicense([
      'upgrade',
      '--key',
      keyFile,
      '--license-id',
      LICENSE_ID,
      '--max-storage',
      '10',
      '--max-play-agent',
      '20',
      '--days',
      '60',
      '--grace-days',
      '10',
    ]);
    const refused: [string, string, string, number, string][] = [
      ['tampered', LICENSE_ID, flipByte(lease, 1), 400, 'LICENSE_INVALID'],
      ['bad signature byte', LICENSE_ID, flipByte(lease, 2), 400, 'LICENSE_INVALID'],
      [
        'another key',
        LICENSE_ID,
        signLease(
          JSON.parse(Buffer.from(lease.split('.')[2]!, 'base64url').toString()) as LeasePayload,
          other.privateKey,
        ),
        400,
        'LICENSE_INVALID',
      ],
      [
        'an ordinary lease',
        LICENSE_ID,
        verifyCode(await newCode({ edition: 'DISTRIBUTED' }), parsePublicKey(publicKey)).lease,
        400,
        'LICENSE_INVALID',
      ],
      ['for another licence', 'lic-other', lease, 400, 'LICENSE_INVALID'],
    ];
    const unknown = await svcLicense([
      'upgrade',
      '--key',
      keyFile,
      '--license-id',
      'lic-unknown',
      '--max-storage',
      '1',
      '--max-play-agent',
      '1',
    ]);
    refused.push(['a licence not activated here', 'lic-unknown', unknown, 404, 'LICENSE_NOT_FOUND']);
    const token = await signIn();
    for (const [what, id, text, code, error] of refused) {
      const answer = await upgrade(id, text, token);
      expect(answer.status, what).toBe(code);
      expect(answer.body.error.code, what).toBe(error);
    }
    expect(await capabilities()).toMatchObject({ edition: 'STANDALONE' });

    const answer = await upgrade(LICENSE_ID, lease, token);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'ACTIVE',
      edition: 'DISTRIBUTED',
      licenseId: LICENSE_ID,
      maxStorageNodes: 10,
      maxPlayAgentNodes: 20,
      validUntil: new Date(clock.now() + 60 * DAY_MS).toISOString(),
    });
    expect(await capabilities()).toEqual({
      edition: 'DISTRIBUTED',
      deploymentMode: 'distributed',
      embeddedNodes: { storage: 'node-local-storage', playAgent: 'node-local-play-agent' },
      externalNodes: true,
    });
    expect(await parts.licenses.refresh()).toMatchObject({
      state: 'ACTIVE',
      edition: 'DISTRIBUTED',
      maxStorageNodes: 10,
      maxPlayAgentNodes: 20,
    });
    const audit = await auditLog('license.edition-upgrade');
    expect(audit.items).toHaveLength(1);
    expect(audit.items[0]).toMatchObject({
      actorName: ADMIN.username,
      targetType: 'license',
      targetId: LICENSE_ID,
      details: { from: 'STANDALONE', to: 'DISTRIBUTED', maxStorageNodes: 10, maxPlayAgentNodes: 20 },
    });
    expect(await parts.database.db.selectFrom('license_audit_outbox').selectAll().execute()).toEqual([]);
  });

  it('refuses a second upgrade and every way back with 409; the edition stays DISTRIBUTED', async () => {
    const lease = await svcLicense([
      'upgrade',
      '--key',
      keyFile,
      '--license-id',
      LICENSE_ID,
      '--max-storage',
      '1',
      '--max-play-agent',
      '1',
    ]);
    const again = await upgrade(LICENSE_ID, lease);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('EDITION_UPGRADE_NOT_ALLOWED');
    // A publisher-signed "upgrade" to STANDALONE is no way back either.
    const down = signLease(
      {
        ...(JSON.parse(Buffer.from(lease.split('.')[2]!, 'base64url').toString()) as LeasePayload),
        edition: 'STANDALONE',
      },
      parsePrivateKey(readFileSync(keyFile, 'utf8')),
    );
    const downgrade = await upgrade(LICENSE_ID, down);
    expect(downgrade.status).toBe(409);
    expect(downgrade.body.error.code).toBe('EDITION_UPGRADE_NOT_ALLOWED');
    // Nor is activating a STANDALONE code.
    const standalone = await activate(await newCode({ edition: 'STANDALONE' }));
    expect(standalone.status).toBe(409);
    expect(standalone.body.error.code).toBe('LICENSE_EDITION_MISMATCH');
    expect(await capabilities()).toMatchObject({ edition: 'DISTRIBUTED', deploymentMode: 'distributed' });
    expect(await status()).toMatchObject({
      edition: 'DISTRIBUTED',
      maxStorageNodes: 10,
      maxPlayAgentNodes: 20,
    });
    expect((await auditLog('license.edition-upgrade')).items).toHaveLength(1);
  });

  it('moves ACTIVE → GRACE → EXPIRED as the clock passes validUntil and graceUntil', async () => {
    const { validUntil, graceUntil } = await status();
    clock.time = Date.parse(validUntil!);
    expect((await status()).status).toBe('ACTIVE');
    clock.time = Date.parse(validUntil!) + 1;
    expect(await status()).toMatchObject({ status: 'GRACE', maxStorageNodes: 10, validUntil, graceUntil });
    expect(await parts.licenses.refresh()).toMatchObject({ state: 'GRACE', maxStorageNodes: 10 });
    clock.time = Date.parse(graceUntil!);
    expect((await status()).status).toBe('GRACE');
    clock.time = Date.parse(graceUntil!) + 1;
    expect(await status()).toMatchObject({ status: 'EXPIRED', maxStorageNodes: 10, validUntil, graceUntil });
    expect((await parts.licenses.refresh()).state).toBe('EXPIRED');
    const refreshed = await entrance<Status>('POST', '/api/license/refresh', { token: await signIn() });
    expect(refreshed.body.status).toBe('EXPIRED');
    // A renewal code (DISTRIBUTED now) makes it ACTIVE again.
    const renewed = await activate(await newCode({ edition: 'DISTRIBUTED', storage: 2, playAgent: 2 }));
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ status: 'ACTIVE', edition: 'DISTRIBUTED', maxStorageNodes: 2 });
  });
});

describe('licences without a publisher key', () => {
  let install: TestInstall;
  const admin: Identity = {
    userId: '00000000-0000-4000-8000-000000000002',
    username: 'root',
    role: 'admin',
    permissions: [...ALL_PERMISSIONS],
    tokenKind: 'admin',
    tokenId: 't',
    clientIp: '127.0.0.1',
  };
  const call = async (method: 'GET' | 'POST', route: string, body?: unknown) => {
    const response = await request(`${install.url('config')}${route}`, {
      method,
      headers: {
        'x-svc-service-token': install.context.serviceToken,
        'x-svc-identity': encodeIdentity(admin),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    install = await startTestInstall([configComponentFactory()], { SVC_DB_MODE: 'bundled' });
  });
  afterAll(async () => install?.stop());

  it('still answers the status (NONE) and refuses activation and upgrade with 409 LICENSE_KEY_NOT_CONFIGURED', async () => {
    const publisher = generatePublisherKeys();
    const now = Date.now();
    const payload: LeasePayload = {
      licenseId: 'lic-x',
      kind: 'lease',
      edition: 'STANDALONE',
      maxStorageNodes: 1,
      maxPlayAgentNodes: 1,
      validFrom: new Date(now).toISOString(),
      validUntil: new Date(now + DAY_MS).toISOString(),
      graceUntil: new Date(now + DAY_MS).toISOString(),
      issuedAt: new Date(now).toISOString(),
    };
    const code = signCode('code-x', signLease(payload, publisher.privateKey), publisher.privateKey);
    expect(await call('GET', '/api/license/status')).toMatchObject({
      status: 200,
      body: { status: 'NONE', activated: false, edition: 'STANDALONE', publicKeyConfigured: false },
    });
    const activation = await call('POST', '/api/license/activate', { code });
    expect(activation).toMatchObject({
      status: 409,
      body: { error: { code: 'LICENSE_KEY_NOT_CONFIGURED' } },
    });
    const upgrade = await call('POST', '/api/admin/licenses/lic-x/edition', {
      lease: signLease({ ...payload, kind: 'edition-upgrade', edition: 'DISTRIBUTED' }, publisher.privateKey),
    });
    expect(upgrade).toMatchObject({ status: 409, body: { error: { code: 'LICENSE_KEY_NOT_CONFIGURED' } } });
    expect((await call('GET', '/api/config/deployment/capabilities')).body).toMatchObject({
      edition: 'STANDALONE',
    });
  });
});
