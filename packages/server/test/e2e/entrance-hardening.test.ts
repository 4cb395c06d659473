import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { installBackends } from '../support/install-backends.js';
import { call } from '../support/playback-install.js';
import { portEnv, type PortEnv } from '../support/ports.js';
import { isAlive, runSvc, type SvcProcess } from '../support/svc-process.js';

const run = promisify(execFile);

/** Sends one raw HTTP/1.1 request and reads until the server closes the connection. */
function rawExchange(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('end', () => resolve(text));
    socket.write(head);
  });
}

/**
 * The public entrances of a real standalone install with SVC_TRUSTED_PROXIES pointed at some other
 * machine: the login lock keeps each client's own address, malformed URLs and `Expect: 100-continue`
 * are answered properly, `Connection: close` is honoured, and a restarting storage process costs no 502.
 */
describe.each(installBackends())('the entrances of a standalone install on $label', (backend) => {
  let svc: SvcProcess;
  let env: PortEnv;
  let dataDir: string;
  let entrance: string;
  let gateway: string;
  let playAgent: string;
  let adminToken: string;
  const folders: string[] = [];
  const fromSecond = new Agent({ localAddress: '127.0.0.2' });
  const fromThird = new Agent({ localAddress: '127.0.0.3' });
  const fromFourth = new Agent({ localAddress: '127.0.0.4' });

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-entrances-'));
    folders.push(dataDir);
    env = await portEnv();
    svc = runSvc(['standalone'], {
      ...env,
      ...backend.env,
      SVC_DATA_DIR: dataDir,
      SVC_TRUSTED_PROXIES: '192.0.2.10',
    });
    await svc.waitForLog(/standalone edition is up/, 120_000);
    entrance = `http://127.0.0.1:${env.SVC_FRONTEND_PORT}`;
    gateway = `http://127.0.0.1:${env.SVC_GATEWAY_PORT}`;
    playAgent = `http://${env.PLAY_AGENT_LISTEN}`;
    const setup = await call(entrance, 'POST', '/api/auth/setup/admin', {
      body: { username: 'root', password: 'root-password-1' },
    });
    expect(setup.status, setup.text).toBe(201);
    const login = await call(entrance, 'POST', '/api/auth/login', {
      body: { username: 'root', password: 'root-password-1', client: 'console' },
    });
    adminToken = String(login.body.adminToken);
  }, 180_000);

  afterAll(async () => {
    if (svc && svc.child.exitCode === null && svc.child.signalCode === null) {
      svc.child.kill('SIGINT');
      await svc.exited;
    }
    for (const pid of svc?.childPids() ?? []) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await Promise.all([fromSecond.close(), fromThird.close(), fromFourth.close()]);
    await backend.cleanup();
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });

  it('locks only the client that failed, though the frontend reaches the gateway over loopback', async () => {
    // A name of its own: on Redis the lock's keys are shared with other installs.
    const username = `lock-${randomBytes(4).toString('hex')}`;
    const password = 'right-password-1';
    const created = await call(entrance, 'POST', '/api/auth/admin/users', {
      headers: { 'x-admin-token': adminToken },
      body: { username, password },
    });
    expect(created.status, created.text).toBe(201);
    const signIn = (base: string, from: Agent, secret: string, headers: Record<string, string> = {}) =>
      call(base, 'POST', '/api/auth/login', {
        dispatcher: from,
        headers,
        body: { username, password: secret, client: 'portal' },
      });

    for (let i = 1; i <= 5; i++)
      expect((await signIn(entrance, fromSecond, 'wrong-password')).status).toBe(401);
    const locked = await signIn(entrance, fromSecond, password);
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ error: { code: 'LOGIN_LOCKED' } });
    expect((await signIn(entrance, fromThird, password)).status).toBe(200);

    // The address header is the frontend's alone: a client can neither escape its lock nor take another's.
    const spoofed = { 'x-svc-client-ip': '127.0.0.9', 'x-forwarded-for': '127.0.0.9' };
    expect((await signIn(entrance, fromSecond, password, spoofed)).status).toBe(429);
    const posing = { 'x-svc-client-ip': '127.0.0.2', 'x-forwarded-for': '127.0.0.2' };
    expect((await signIn(entrance, fromThird, password, posing)).status).toBe(200);

    // The gateway's own entrance sees the same addresses and ignores the header without the service token.
    expect((await signIn(gateway, fromSecond, password)).status).toBe(429);
    expect((await signIn(gateway, fromFourth, password, posing)).status).toBe(200);

    // The play-agent's sign-in shares the lock and keys it on its own peer address.
    const playerSignIn = (from: Agent) =>
      call(playAgent, 'POST', '/Users/AuthenticateByName', {
        dispatcher: from,
        headers: { 'x-emby-authorization': 'MediaBrowser Client="t", Device="d", DeviceId="1", Version="1"' },
        body: { Username: username, Pw: password },
      });
    expect((await playerSignIn(fromSecond)).status).toBe(429);
    expect((await playerSignIn(fromThird)).status).toBe(200);
  });

  it('answers a malformed percent-escape with 400 and the error body on every listener', async () => {
    const refusals = [
      `${entrance}/api/license/status?x=%ff`,
      `${entrance}/api/media/%ff`,
      `${gateway}/api/license/status?x=%ff`,
      `${gateway}/api/auth/%zz`,
      `${playAgent}/System/Info/Public?x=%ff`,
      `${playAgent}/Items/%ff`,
    ];
    for (const url of refusals) {
      const answer = await call(url, 'GET', '');
      expect(answer.status, url).toBe(400);
      expect(answer.body, url).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    }
  });

  it('takes uploads sent with Expect: 100-continue and still refuses an oversized body with 413', async () => {
    // A mount root may not lie inside the data folder.
    const root = mkdtempSync(path.join(tmpdir(), 'svc-entrances-mount-'));
    folders.push(root);
    const mount = await call(entrance, 'POST', '/api/storage/mounts', {
      headers: { 'x-admin-token': adminToken },
      body: { name: 'uploads', provider: 'local', config: { root } },
    });
    expect(mount.status, mount.text).toBe(201);
    const payload = randomBytes(3 * 1024 * 1024);
    const upload = await call(entrance, 'POST', `/api/storage/mounts/${String(mount.body.id)}/uploads`, {
      headers: { 'x-admin-token': adminToken },
      body: { path: 'big.bin', size: payload.length },
    });
    expect(upload.status, upload.text).toBe(201);
    const chunkUrl = `${entrance}/api/storage/mounts/${String(mount.body.id)}/uploads/${String(upload.body.id)}/chunks/0`;
    const file = path.join(dataDir, 'chunk.bin');

    const curlPut = async (bytes: Buffer) => {
      writeFileSync(file, bytes);
      const { stdout } = await run('curl', [
        '-sS',
        '-X',
        'PUT',
        '-H',
        'Expect: 100-continue',
        '-H',
        'Content-Type: application/octet-stream',
        '-H',
        `X-Admin-Token: ${adminToken}`,
        '--data-binary',
        `@${file}`,
        '-w',
        '\n%{http_code} %{size_upload}',
        chunkUrl,
      ]);
      const lines = stdout.trimEnd().split('\n');
      const [status, uploaded] = lines.pop()!.split(' ').map(Number);
      return { status: status!, uploaded: uploaded!, body: lines.join('\n') };
    };

    const sent = await curlPut(payload);
    expect(sent.status, sent.body).toBeLessThan(300);
    const done = await call(
      entrance,
      'POST',
      `/api/storage/mounts/${String(mount.body.id)}/uploads/${String(upload.body.id)}/complete`,
      { headers: { 'x-admin-token': adminToken } },
    );
    expect(done.status, done.text).toBeLessThan(300);
    expect(readFileSync(path.join(root, 'big.bin')).equals(payload)).toBe(true);

    const tooLarge = await curlPut(Buffer.alloc(21 * 1024 * 1024, 1));
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    // Refused before the client sent it: no 100 Continue was given.
    expect(tooLarge.uploaded).toBe(0);
  });

  it('honours a client’s Connection: close on proxied routes', async () => {
    for (const port of [env.SVC_FRONTEND_PORT, env.SVC_GATEWAY_PORT]) {
      const answer = await rawExchange(
        Number(port),
        'GET /api/license/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
      );
      const head = answer.slice(0, answer.indexOf('\r\n\r\n')).toLowerCase();
      expect(head, port).toMatch(/^http\/1\.1 200/);
      expect(head, port).toMatch(/\r\nconnection: close(\r\n|$)/);
      expect(head, port).not.toMatch(/keep-alive/);
    }
  });

  it(
    'answers the first request after the storage process restarts, not 502',
    { timeout: 120_000 },
    async () => {
      expect((await call(entrance, 'GET', '/api/storage/ping')).status).toBe(200);
      const pidFile = path.join(dataDir, 'run', 'node-local-storage.pid');
      const oldPid = Number(readFileSync(pidFile, 'utf8'));
      process.kill(oldPid, 'SIGKILL');
      while (isAlive(oldPid)) await new Promise((resolve) => setTimeout(resolve, 20));
      // The supervisor is bringing it back; the entrance waits for it instead of answering 502.
      const first = await call(entrance, 'GET', '/api/storage/ping');
      expect(first.status, first.text).toBe(200);
      expect(Number(readFileSync(pidFile, 'utf8'))).not.toBe(oldPid);
      const mounts = await call(entrance, 'GET', '/api/storage/mounts', {
        headers: { 'x-admin-token': adminToken },
      });
      expect(mounts.status, mounts.text).toBe(200);
    },
  );
});
