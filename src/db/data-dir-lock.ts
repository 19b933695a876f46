import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite has no lock of its own: a second process opening the same folder silently loses writes.
 * We take an exclusive lock file (O_EXCL create holding our pid) and refuse a second process. A
 * lock left by a process that no longer exists (crash, SIGKILL) is taken over.
 */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The data folder ${dataDir} is in use by another Tidings process (pid ${pid}). ` +
        'Embedded mode allows one process per folder: stop that process, use another DATA_DIR, ' +
        'or set DATABASE_URL to run several processes on a PostgreSQL server.',
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'tidings.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
          } catch {
            // already gone
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder: number;
      try {
        holder = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
      } catch {
        continue; // vanished between open and read: try again
      }
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new DataDirLockedError(dataDir, holder);
      }
      // Stale lock (dead or unreadable holder): remove it and retry the exclusive create.
      try {
        unlinkSync(path);
      } catch {
        // someone else removed it first
      }
    }
  }
  throw new Error(`Could not take the lock ${path}`);
}
