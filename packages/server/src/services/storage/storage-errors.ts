import { AppError, badRequest } from '../../platform/http/errors.js';

/** Error codes of the storage node (docs/storage.md lists them with their statuses). */
export const storageErrors = {
  mountNotFound: () => new AppError(404, 'NOT_FOUND', 'mount not found'),
  pathNotFound: () => new AppError(404, 'NOT_FOUND', 'no file or folder at this path'),
  alreadyExists: () => new AppError(409, 'ALREADY_EXISTS', 'a file or folder with this name already exists'),
  notADirectory: () => new AppError(409, 'NOT_A_DIRECTORY', 'the path is not a folder'),
  isADirectory: () => new AppError(409, 'IS_A_DIRECTORY', 'the path is a folder'),
  fileChanged: (expected: number, actual: number | null) =>
    new AppError(
      412,
      'FILE_CHANGED',
      `the file holds ${actual ?? 'an unknown number of'} bytes on its storage, not the ${expected} expected`,
    ),
  notEmpty: () =>
    new AppError(409, 'DIRECTORY_NOT_EMPTY', 'the folder is not empty (delete it with recursive: true)'),
  invalidTarget: (message: string) => new AppError(400, 'INVALID_TARGET', message),
  unavailable: (message: string) => new AppError(502, 'STORAGE_UNAVAILABLE', message),
  mountInUse: () =>
    new AppError(
      409,
      'MOUNT_IN_USE',
      'the mount has running transfers or open uploads; finish or cancel them',
    ),
  mountRootForbidden: (message: string) => new AppError(400, 'MOUNT_ROOT_FORBIDDEN', message),
  /** A drive mount names an account that does not exist (or is of another drive). */
  accountMissing: (accountId: string) =>
    badRequest(`no drive account ${accountId} of this drive`, [
      { path: '/config/accountId', message: 'no drive account of this drive has this id' },
    ]),
};

/** Thrown by a provider when an operation cannot be done natively (the caller falls back). */
export class NativeUnsupported extends Error {}

/** Maps a Node file system error of a local provider to the storage error it stands for. */
export function fromFsError(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return storageErrors.pathNotFound();
    case 'EEXIST':
      return storageErrors.alreadyExists();
    case 'ENOTDIR':
      return storageErrors.notADirectory();
    case 'EISDIR':
      return storageErrors.isADirectory();
    case 'ENOTEMPTY':
      return storageErrors.notEmpty();
    case 'EACCES':
    case 'EPERM':
      return new AppError(403, 'FORBIDDEN', 'the storage node may not access this path');
    case 'ENOSPC':
      return new AppError(507, 'INSUFFICIENT_STORAGE', 'no space left on the storage device');
    case 'ENAMETOOLONG':
      return new AppError(400, 'INVALID_PATH', 'path is not valid: too long for the file system');
    default:
      return error;
  }
}
