import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AppError, forbidden, notFound, unauthorized } from '../../../platform/http/errors.js';
import { type WorkerServiceType, isWorkerServiceType } from './install-kinds.js';
import type { InstallRepository } from './install.repository.js';

/**
 * Layout of SVC_BINARIES_DIR (docs/node-install.md): ONE executable serves both worker types, because the
 * same program runs `svc node storage` and `svc node play-agent`; scripts/build-node-binary.mjs writes all
 * three files.
 */
export const NODE_BINARY_FILE = 'svc-node-linux-x64';
export const NODE_BINARY_VERSION_FILE = 'VERSION';
export const NODE_BINARY_SHA256_FILE = `${NODE_BINARY_FILE}.sha256`;
export const NODE_BINARY_PLATFORM = 'linux-x64';

export interface BinaryStatus {
  provided: boolean;
  file: string;
  platform: string;
  version: string | null;
  sizeBytes: number | null;
  sha256: string | null;
  modifiedAt: string | null;
  services: WorkerServiceType[];
  controlVersion: string;
  dockerImage: string;
  dockerImageFfmpeg: string;
  message: string;
}

export interface BinaryDownload {
  handle: FileHandle;
  size: number;
  version: string | null;
  fileName: string;
}

const SERVICES: WorkerServiceType[] = ['svc-control-storage', 'svc-play-agent'];

/** Node binaries from SVC_BINARIES_DIR: the download for nodes (node token) and the status for the console. */
export class BinariesService {
  constructor(
    private readonly nodes: InstallRepository,
    private readonly options: {
      binariesDir: string;
      controlVersion: string;
      dockerImage: string;
      dockerImageFfmpeg: string;
    },
  ) {}

  /**
   * Checks the request and opens the binary. 404 for a service that is not a worker type, 401 without a token,
   * 403 when the token names no worker node of that service type (or a built-in one, which is never installed),
   * 404 BINARY_NOT_AVAILABLE when the file is absent. The caller streams the open file and closes it.
   */
  async open(service: string, token: string | undefined): Promise<BinaryDownload> {
    if (!isWorkerServiceType(service)) throw notFound(`binary for ${service}`);
    if (token === undefined || token.length === 0)
      throw unauthorized('node token required (?token=<NODE_TOKEN>)');
    const node = await this.nodes.findByNodeToken(token);
    if (!node || node.serviceType !== service || node.scope === 'EMBEDDED') {
      throw forbidden(`the node token does not belong to a ${service} node`);
    }
    let handle: FileHandle;
    try {
      handle = await open(path.join(this.options.binariesDir, NODE_BINARY_FILE), 'r');
    } catch {
      throw new AppError(
        404,
        'BINARY_NOT_AVAILABLE',
        `the config service provides no binary for ${service} (see GET /api/config/binaries/status)`,
      );
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new Error('not a file');
      return { handle, size: info.size, version: await this.version(), fileName: NODE_BINARY_FILE };
    } catch {
      await handle.close();
      throw new AppError(404, 'BINARY_NOT_AVAILABLE', `the config service provides no binary for ${service}`);
    }
  }

  async status(): Promise<BinaryStatus> {
    const file = path.join(this.options.binariesDir, NODE_BINARY_FILE);
    const info = await stat(file).catch(() => undefined);
    const provided = info?.isFile() === true;
    const version = provided ? await this.version() : null;
    const sha256 = provided
      ? ((
          await readFile(path.join(this.options.binariesDir, NODE_BINARY_SHA256_FILE), 'utf8').catch(() => '')
        )
          .trim()
          .split(/\s+/)[0]
          ?.match(/^[0-9a-f]{64}$/)?.[0] ?? null)
      : null;
    return {
      provided,
      file: NODE_BINARY_FILE,
      platform: NODE_BINARY_PLATFORM,
      version,
      sizeBytes: provided && info ? info.size : null,
      sha256,
      modifiedAt: provided && info ? info.mtime.toISOString() : null,
      services: SERVICES,
      controlVersion: this.options.controlVersion,
      dockerImage: this.options.dockerImage,
      dockerImageFfmpeg: this.options.dockerImageFfmpeg,
      message: provided
        ? `the config service provides the node binary ${version ?? '(version unknown: no VERSION file)'} for storage nodes and play-agents`
        : `the config service provides no binary: put ${NODE_BINARY_FILE} into SVC_BINARIES_DIR (npm run build:node-binary -- --out <SVC_BINARIES_DIR>)`,
    };
  }

  private async version(): Promise<string | null> {
    const text = await readFile(path.join(this.options.binariesDir, NODE_BINARY_VERSION_FILE), 'utf8').catch(
      () => '',
    );
    const version = text.trim();
    return /^[0-9A-Za-z.+-]{1,64}$/.test(version) ? version : null;
  }
}
