import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, forbidden, notFound, unauthorized } from '../../../platform/http/errors.js';
import { type WorkerServiceType, isWorkerServiceType } from './install-kinds.js';
import type { InstallRepository } from './install.repository.js';
import type { NodeImages } from './node-image-settings.service.js';

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

/**
 * The folder `npm start` and the container image build the node binary into: `node-binary/` beside the built
 * program (packages/server/dist). Running from source there is none (this file is not in dist).
 */
export function bundledBinariesDir(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), 'node-binary');
}

const SERVICES: WorkerServiceType[] = ['svc-control-storage', 'svc-play-agent'];

/** Node binaries from SVC_BINARIES_DIR: the download for nodes (node token) and the status for the console. */
export class BinariesService {
  constructor(
    private readonly nodes: InstallRepository,
    private readonly options: {
      binariesDir: string;
      /**
       * Where the build put a binary of this very version (`npm start` builds it into the program's own
       * dist/node-binary, the container image too): served when SVC_BINARIES_DIR holds none, so a new control
       * plane installs worker nodes out of the box.
       */
      bundledBinariesDir?: string | undefined;
      controlVersion: string;
      /** The images the container install kinds name (the console setting, else the environment default). */
      images: () => Promise<NodeImages>;
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
    const directory = await this.locate();
    let handle: FileHandle;
    try {
      if (!directory) throw new Error('no binary');
      handle = await open(path.join(directory, NODE_BINARY_FILE), 'r');
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
      return { handle, size: info.size, version: await this.version(directory), fileName: NODE_BINARY_FILE };
    } catch {
      await handle.close();
      throw new AppError(404, 'BINARY_NOT_AVAILABLE', `the config service provides no binary for ${service}`);
    }
  }

  /** The folder the binary is served from: SVC_BINARIES_DIR when it holds one, else the build's own. */
  private async locate(): Promise<string | undefined> {
    for (const directory of [this.options.binariesDir, this.options.bundledBinariesDir]) {
      if (!directory) continue;
      const info = await stat(path.join(directory, NODE_BINARY_FILE)).catch(() => undefined);
      if (info?.isFile()) return directory;
    }
    return undefined;
  }

  async status(): Promise<BinaryStatus> {
    const directory = await this.locate();
    const info = directory
      ? await stat(path.join(directory, NODE_BINARY_FILE)).catch(() => undefined)
      : undefined;
    const provided = directory !== undefined && info?.isFile() === true;
    const version = provided ? await this.version(directory) : null;
    const bundled = provided && directory !== this.options.binariesDir;
    const sha256 = provided
      ? ((await readFile(path.join(directory, NODE_BINARY_SHA256_FILE), 'utf8').catch(() => ''))
          .trim()
          .split(/\s+/)[0]
          ?.match(/^[0-9a-f]{64}$/)?.[0] ?? null)
      : null;
    const images = await this.options.images();
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
      dockerImage: images.image,
      dockerImageFfmpeg: images.imageFfmpeg,
      message: provided
        ? `the config service provides the node binary ${version ?? '(version unknown: no VERSION file)'} for storage nodes and play-agents${bundled ? ' (built with this program; a binary in SVC_BINARIES_DIR would take its place)' : ''}`
        : `the config service provides no binary: put ${NODE_BINARY_FILE} into SVC_BINARIES_DIR (npm run build:node-binary -- --out <SVC_BINARIES_DIR>)`,
    };
  }

  private async version(directory: string): Promise<string | null> {
    const text = await readFile(path.join(directory, NODE_BINARY_VERSION_FILE), 'utf8').catch(() => '');
    const version = text.trim();
    return /^[0-9A-Za-z.+-]{1,64}$/.test(version) ? version : null;
  }
}
