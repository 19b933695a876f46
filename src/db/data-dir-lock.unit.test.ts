import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.js';

describe('data folder lock', () => {
  it('refuses a second holder while the first is alive', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-lock-'));
    const lock = lockDataDir(dir);
    // Pretend the lock belongs to another live process (our parent).
    writeFileSync(join(dir, 'tidings.lock'), String(process.ppid));
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dir)).toThrow(/in use by another Tidings process/);
    writeFileSync(join(dir, 'tidings.lock'), String(process.pid));
    lock.release();
    lockDataDir(dir).release();
  });

  it('takes over a lock left by a dead process', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-lock-'));
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(join(dir, 'tidings.lock'), dead);
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, 'tidings.lock'), 'utf8')).toBe(String(process.pid));
    lock.release();
  });
});
