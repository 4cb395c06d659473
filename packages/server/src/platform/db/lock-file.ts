import { randomBytes } from 'node:crypto';
import { linkSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, closeSync } from 'node:fs';
import path from 'node:path';
import { DatabaseError, describeError, errorCode } from './errors.js';

/** Name of the lock file inside a PGlite data directory. */
export const LOCK_FILE_NAME = 'svc.lock';

/** Lock files this process holds (absolute paths): tells our own live pid from a stale lock of a previous run. */
const heldByThisProcess = new Set<string>();

export interface DataDirLock {
  readonly path: string;
  /** pid of the dead process whose lock was taken over, if any. */
  readonly takenOverFrom: number | undefined;
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errorCode(err) === 'EPERM';
  }
}

/** The pid in a lock file; null when the file is gone; undefined when it holds no pid. */
function readPid(file: string): number | null | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw new DatabaseError(`cannot read lock file ${file}: ${describeError(err)}`, { cause: err });
  }
  const pid = Number(text.trim().split(/\s+/)[0]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Creates a file with its content unless it exists (false then), atomically with the content where the
 * filesystem allows (written aside, then hard-linked into place). what names the file in errors.
 */
export function createFileOnce(file: string, content: string, what = 'file'): boolean {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, content, { flag: 'wx' });
    try {
      linkSync(temp, file);
      return true;
    } catch (err) {
      if (errorCode(err) === 'EEXIST') return false;
      if (!NO_HARD_LINKS.has(errorCode(err) ?? '')) throw err;
    }
    // No hard links here: exclusive create, then write.
    let fd: number;
    try {
      fd = openSync(file, 'wx');
    } catch (err) {
      if (errorCode(err) === 'EEXIST') return false;
      throw err;
    }
    try {
      writeFileSync(fd, content);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (err) {
    throw new DatabaseError(`cannot create ${what} ${file}: ${describeError(err)}`, { cause: err });
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // not created
    }
  }
}

/**
 * Moves a stale lock aside. If another starter replaced it in the meantime, the moved file is not the
 * stale one: it is put back and the caller looks again.
 */
function removeStale(file: string, stalePid: number | undefined): void {
  const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(file, aside);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return;
    throw new DatabaseError(`cannot remove stale lock file ${file}: ${describeError(err)}`, { cause: err });
  }
  if (readPid(aside) !== stalePid) {
    try {
      linkSync(aside, file);
    } catch {
      // someone holds it again; the next look decides
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // already gone
  }
}

/**
 * Takes the exclusive lock of a data directory: a file holding our pid. A lock whose pid is alive refuses;
 * a lock of a dead process (or of our own pid but not held by us, as after a container restart) is taken over.
 */
export function acquireDataDirLock(dir: string, label: string): DataDirLock {
  const file = path.resolve(dir, LOCK_FILE_NAME);
  let takenOverFrom: number | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createFileOnce(file, `${process.pid}\n`, 'lock file')) {
      heldByThisProcess.add(file);
      let released = false;
      return {
        path: file,
        takenOverFrom,
        release() {
          if (released) return;
          released = true;
          heldByThisProcess.delete(file);
          try {
            if (readPid(file) === process.pid) unlinkSync(file);
          } catch {
            // best effort: a lock left behind is stale once we are gone
          }
        },
      };
    }
    const pid = readPid(file);
    if (pid === null) continue;
    if (pid !== undefined && isAlive(pid) && (pid !== process.pid || heldByThisProcess.has(file))) {
      const who = pid === process.pid ? `process ${pid} (this process)` : `process ${pid}`;
      throw new DatabaseError(
        `database ${label} is in use by ${who} (lock file ${file}); stop it first, or delete the lock ` +
          'file if no such process uses this data folder',
      );
    }
    removeStale(file, pid);
    takenOverFrom = pid;
  }
  throw new DatabaseError(`cannot take lock file ${file} for database ${label}: it keeps changing`);
}
