import type { DiagnosticCheck, DiagnosticsRun } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.js';
import { CONSOLE, PLAYBACK, startProxiedInstall, type ProxiedInstall } from './proxied-install.js';

const HOLD_SECONDS = 5;

/**
 * The console's Diagnostics page: the application runs the doctor's checks against the manual address
 * and the console address, through the real nginx with the generated sites, started and read back through
 * the console site as the browser does.
 */
describe('diagnostics runs of the application', () => {
  let proxied: ProxiedInstall;
  const consoleUrl = () => `https://${CONSOLE}:${proxied.nginx.httpsPort}`;

  beforeAll(async () => {
    proxied = await startProxiedInstall();
    // Played URLs through the proxy, as rule 8 asks.
    const nodeId = proxied.env.install.context.settings.playAgent.nodeId;
    const patched = await proxied.env.admin('PATCH', `/api/config/nodes/${nodeId}`, {
      externalAddress: { protocol: 'https', host: PLAYBACK, port: proxied.nginx.httpsPort },
    });
    if (patched.status !== 200) throw new Error(patched.text);
  }, 400_000);

  afterAll(async () => {
    await proxied?.stop();
  });

  async function run(token: string, body: Record<string, unknown>): Promise<DiagnosticCheck[]> {
    const started = await proxied.viaConsole('POST', '/api/config/diagnostics/runs', token, body);
    expect(started.status, started.body.toString()).toBe(202);
    const { runId } = JSON.parse(started.body.toString()) as DiagnosticsRun;
    const done = await waitFor(async () => {
      const answer = await proxied.viaConsole('GET', `/api/config/diagnostics/runs/${runId}`, token);
      const read = JSON.parse(answer.body.toString()) as DiagnosticsRun;
      return read.state === 'done' ? read : undefined;
    }, 90_000);
    return done.checks;
  }
  const statusOf = (checks: DiagnosticCheck[]) =>
    Object.fromEntries(checks.map((check) => [check.id, check.status]));

  it('passes every check of the troubleshooting list with the generated sites', async () => {
    const checks = await run(proxied.env.adminToken, { consoleUrl: consoleUrl(), holdSeconds: HOLD_SECONDS });
    expect(statusOf(checks), JSON.stringify(checks, null, 2)).toEqual({
      'playback-site': 'ok',
      'endpoint-token': 'ok',
      'playback-range': 'ok',
      'playback-compression': 'ok',
      'playback-buffering': 'ok',
      'playback-timeout': 'ok',
      'console-site': 'ok',
      'console-buffering': 'ok',
      'console-timeout': 'ok',
      'manual-address-reachable': 'ok',
      'external-address': 'ok',
      'node-pending': 'ok',
      'play-agent-port': 'ok',
    });
    expect(checks.find((check) => check.id === 'playback-site')?.subject).toBe(
      `https://${PLAYBACK}:${proxied.nginx.httpsPort}`,
    );
  }, 120_000);

  it('names buffering on the playback site and a buffered event stream', async () => {
    const sites = proxied.generated();
    const at = sites.lastIndexOf('proxy_buffering off;');
    const broken = `${sites
      .slice(0, at)
      .replace(
        'proxy_buffering off;',
        'proxy_buffering on; proxy_ignore_headers X-Accel-Buffering;',
      )}proxy_buffering on;${sites.slice(at + 'proxy_buffering off;'.length)}`;
    await proxied.reload(broken);
    try {
      const checks = await run(proxied.env.adminToken, {
        consoleUrl: consoleUrl(),
        holdSeconds: HOLD_SECONDS,
      });
      const byId = new Map(checks.map((check) => [check.id, check]));
      expect(byId.get('playback-buffering')).toMatchObject({ status: 'problem' });
      expect(byId.get('playback-buffering')?.fix).toContain('proxy_buffering off');
      expect(byId.get('console-buffering')).toMatchObject({ status: 'problem' });
    } finally {
      await proxied.reload(sites);
    }
  }, 120_000);

  it('refuses a console address on another host than the request came through', async () => {
    const answer = await proxied.viaConsole('POST', '/api/config/diagnostics/runs', proxied.env.adminToken, {
      consoleUrl: `https://elsewhere.test:${proxied.nginx.httpsPort}`,
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body.toString())).toMatchObject({
      error: { code: 'VALIDATION_FAILED', details: [{ path: '/consoleUrl' }] },
    });
  });

  it('opens the console stream probe only with a live ticket', async () => {
    const answer = await proxied.viaConsole(
      'GET',
      '/api/config/diagnostics/stream-probe/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa?holdMs=10',
      '',
    );
    expect(answer.status).toBe(404);
  });

  it('does not aim the probes at private addresses for an account that is not admin', async () => {
    const token = await proxied.env.userToken('operator', ['node']);
    const checks = await run(token, { consoleUrl: consoleUrl(), holdSeconds: HOLD_SECONDS });
    const byId = new Map(checks.map((check) => [check.id, check]));
    for (const id of ['playback-site', 'console-site']) {
      expect(byId.get(id), id).toMatchObject({ status: 'skipped' });
      expect(byId.get(id)?.detail, id).toContain('only an administrator');
    }
    expect(byId.has('playback-range')).toBe(false);
  }, 120_000);
});
