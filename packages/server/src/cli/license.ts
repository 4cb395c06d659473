import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { Edition } from '@svc/contracts';
import {
  generatePublisherKeys,
  newLicenseObjectId,
  parsePrivateKey,
  publicKeyLine,
  signCode,
  signLease,
  type LeaseKind,
  type LeasePayload,
} from '../services/config/licenses/lease.js';

/**
 * `svc license`: the publisher's side of licences (docs/licences.md). Runs offline with the publisher's
 * private key; it never touches an install's database.
 */

const USAGE = [
  'usage: svc license keygen --out DIR',
  '       svc license issue|code --key PRIVATE.pem --edition STANDALONE|DISTRIBUTED --max-storage N',
  '                 --max-play-agent N --days N --grace-days N [--install-id ID] [--license-id ID]',
  '       svc license upgrade --key PRIVATE.pem --license-id ID --max-storage N --max-play-agent N',
  '                 [--days N] [--grace-days N] [--install-id ID]',
].join('\n');

export const PRIVATE_KEY_FILE = 'publisher-private.pem';
export const PUBLIC_KEY_FILE = 'publisher-public.pem';
/** Validity of an edition-upgrade lease when --days / --grace-days are not given. */
export const UPGRADE_DEFAULT_DAYS = 365;
export const UPGRADE_DEFAULT_GRACE_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Wrong or missing options: one line on stderr and exit code 2. */
export class LicenseUsageError extends Error {}

export interface LicenseCliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Time source for validFrom and issuedAt. */
  now?: () => number;
}

export interface LeaseOptions {
  kind: LeaseKind;
  edition: Edition;
  maxStorageNodes: number;
  maxPlayAgentNodes: number;
  days: number;
  graceDays: number;
  licenseId?: string;
  installId?: string;
}

/** The payload of a new lease: valid from now for `days`, then `graceDays` of grace. */
export function leasePayload(options: LeaseOptions, now: number): LeasePayload {
  const validUntil = now + options.days * DAY_MS;
  return {
    licenseId: options.licenseId ?? newLicenseObjectId('lic'),
    kind: options.kind,
    edition: options.edition,
    maxStorageNodes: options.maxStorageNodes,
    maxPlayAgentNodes: options.maxPlayAgentNodes,
    validFrom: new Date(now).toISOString(),
    validUntil: new Date(validUntil).toISOString(),
    graceUntil: new Date(validUntil + options.graceDays * DAY_MS).toISOString(),
    issuedAt: new Date(now).toISOString(),
    ...(options.installId === undefined ? {} : { installId: options.installId }),
  };
}

/** A signed lease (`svc license issue`, and `svc license upgrade` with kind edition-upgrade). */
export function issueLease(options: LeaseOptions, privateKey: KeyObject, now = Date.now()): string {
  return signLease(leasePayload(options, now), privateKey);
}

/** A one-time activation code around a new lease (`svc license code`). */
export function issueCode(options: LeaseOptions, privateKey: KeyObject, now = Date.now()): string {
  return signCode(newLicenseObjectId('code'), issueLease(options, privateKey, now), privateKey);
}

type Flags = Map<string, string>;

function parseFlags(args: string[], allowed: readonly string[]): Flags {
  const flags: Flags = new Map();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? (arg.split(/=(.*)/s, 2) as [string, string])
        : [arg, undefined];
    if (!allowed.includes(flag)) throw new LicenseUsageError(`unknown argument '${arg}'`);
    if (flags.has(flag)) throw new LicenseUsageError(`${flag} is given twice`);
    const value = inline ?? args[++i];
    if (value === undefined || value === '') throw new LicenseUsageError(`${flag} needs a value`);
    flags.set(flag, value);
  }
  return flags;
}

function required(flags: Flags, flag: string): string {
  const value = flags.get(flag);
  if (value === undefined) throw new LicenseUsageError(`${flag} is required`);
  return value;
}

function integer(flags: Flags, flag: string, min: number, max: number, fallback?: number): number {
  const raw = flags.get(flag);
  if (raw === undefined) {
    if (fallback !== undefined) return fallback;
    throw new LicenseUsageError(`${flag} is required`);
  }
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new LicenseUsageError(`${flag} must be a whole number from ${min} to ${max}, not '${raw}'`);
  }
  return Number(raw);
}

function optionalId(flags: Flags, flag: string): string | undefined {
  const value = flags.get(flag);
  if (value !== undefined && !ID_PATTERN.test(value)) {
    throw new LicenseUsageError(`${flag} must be 1-64 letters, digits, '.', '_' or '-'`);
  }
  return value;
}

function edition(flags: Flags): Edition {
  const raw = required(flags, '--edition').toUpperCase();
  if (raw !== 'STANDALONE' && raw !== 'DISTRIBUTED') {
    throw new LicenseUsageError('--edition must be STANDALONE or DISTRIBUTED');
  }
  return raw;
}

/** Reads the private key file; a missing or unusable file is an error of the command (exit 1). */
function readPrivateKey(file: string): KeyObject {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return parsePrivateKey(pem);
  } catch (error) {
    throw new Error(`${file} ${(error as Error).message}`);
  }
}

const LEASE_FLAGS = [
  '--key',
  '--edition',
  '--max-storage',
  '--max-play-agent',
  '--days',
  '--grace-days',
  '--install-id',
  '--license-id',
] as const;
const UPGRADE_FLAGS = [
  '--key',
  '--license-id',
  '--max-storage',
  '--max-play-agent',
  '--days',
  '--grace-days',
  '--install-id',
] as const;

function keygen(args: string[], io: LicenseCliIo): void {
  const out = path.resolve(required(parseFlags(args, ['--out']), '--out'));
  const keys = generatePublisherKeys();
  mkdirSync(out, { recursive: true });
  const privateFile = path.join(out, PRIVATE_KEY_FILE);
  const publicFile = path.join(out, PUBLIC_KEY_FILE);
  try {
    // 'wx': never overwrite a publisher key; every lease signed with it would become unverifiable.
    writeFileSync(privateFile, keys.privatePem, { mode: 0o600, flag: 'wx' });
    writeFileSync(publicFile, keys.publicPem, { mode: 0o644, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new Error(`${out} holds a publisher key already; choose another --out folder`);
    }
    throw error;
  }
  io.stdout.write(
    `wrote ${privateFile} (keep it secret) and ${publicFile}\n` +
      `SVC_LICENSE_PUBLIC_KEY=${publicKeyLine(keys.publicKey)}\n`,
  );
}

function leaseCommand(command: 'issue' | 'code' | 'upgrade', args: string[], io: LicenseCliIo): void {
  const now = io.now?.() ?? Date.now();
  if (command === 'upgrade') {
    const flags = parseFlags(args, UPGRADE_FLAGS);
    const options: LeaseOptions = {
      kind: 'edition-upgrade',
      edition: 'DISTRIBUTED',
      licenseId: optionalId(flags, '--license-id') ?? required(flags, '--license-id'),
      maxStorageNodes: integer(flags, '--max-storage', 0, 100_000),
      maxPlayAgentNodes: integer(flags, '--max-play-agent', 0, 100_000),
      days: integer(flags, '--days', 1, 36_500, UPGRADE_DEFAULT_DAYS),
      graceDays: integer(flags, '--grace-days', 0, 3_650, UPGRADE_DEFAULT_GRACE_DAYS),
      installId: optionalId(flags, '--install-id'),
    };
    io.stdout.write(`${issueLease(options, readPrivateKey(required(flags, '--key')), now)}\n`);
    return;
  }
  const flags = parseFlags(args, LEASE_FLAGS);
  const options: LeaseOptions = {
    kind: 'lease',
    edition: edition(flags),
    maxStorageNodes: integer(flags, '--max-storage', 0, 100_000),
    maxPlayAgentNodes: integer(flags, '--max-play-agent', 0, 100_000),
    days: integer(flags, '--days', 1, 36_500),
    graceDays: integer(flags, '--grace-days', 0, 3_650),
    licenseId: optionalId(flags, '--license-id'),
    installId: optionalId(flags, '--install-id'),
  };
  const key = readPrivateKey(required(flags, '--key'));
  io.stdout.write(`${command === 'code' ? issueCode(options, key, now) : issueLease(options, key, now)}\n`);
}

/**
 * Runs `svc license …` and answers the exit code: 0 done, 2 wrong or missing options, 1 anything else
 * (unreadable key file, a folder that holds a key already). Failures write one line on stderr.
 */
export async function runLicense(
  args: string[],
  io: LicenseCliIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case 'keygen':
        keygen(rest, io);
        return 0;
      case 'issue':
      case 'code':
      case 'upgrade':
        leaseCommand(command, rest, io);
        return 0;
      case '--help':
      case 'help':
        io.stdout.write(`${USAGE}\n`);
        return 0;
      case undefined:
        throw new LicenseUsageError('name a command: keygen, issue, code or upgrade');
      default:
        throw new LicenseUsageError(`unknown command '${command}'`);
    }
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
    if (error instanceof LicenseUsageError) {
      io.stderr.write(`svc license: ${message}; run svc license --help\n`);
      return 2;
    }
    io.stderr.write(`svc license: ${message}\n`);
    return 1;
  }
}
