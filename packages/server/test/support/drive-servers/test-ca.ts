import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A throw-away certificate authority and one server certificate it signed, made with openssl. */
export interface TestCa {
  /** The CA certificate (PEM), to trust. */
  caPem: string;
  /** Path of the CA certificate file (PLAY_AGENT_CDN_CA_FILE). */
  caFile: string;
  /** Server certificate for the names given, and its key (PEM). */
  certPem: string;
  keyPem: string;
  remove(): void;
}

/** Makes a CA and a server certificate whose subjectAltName lists `dnsNames` (and 127.0.0.1). */
export function createTestCa(dnsNames: string[]): TestCa {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-test-ca-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=svc test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    `/CN=${dnsNames[0]}`,
  );
  const altNames = [...dnsNames.map((name) => `DNS:${name}`), 'IP:127.0.0.1'].join(',');
  writeFileSync(file('ext.cnf'), `subjectAltName=${altNames}\nextendedKeyUsage=serverAuth\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  );
  return {
    caPem: readFileSync(file('ca.pem'), 'utf8'),
    caFile: file('ca.pem'),
    certPem: readFileSync(file('server.pem'), 'utf8'),
    keyPem: readFileSync(file('server.key'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
