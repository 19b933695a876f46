import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../lib/clock.js';
import { createLocalStorage } from './local-storage.js';
import { createMediaJanitor } from './media-janitor.js';
import type { MediaStorage } from './storage.js';

const HOUR = 3600_000;

describe('media storage janitor', () => {
  let root: string;
  let storage: MediaStorage;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'tidings-janitor-unit-'));
    storage = createLocalStorage(root);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  /** An in-memory `media_unclaimed` table and set of live keys. */
  function table(entries: [string, number][], live: Set<string> = new Set()) {
    const rows = new Map(entries);
    const asked: number[] = [];
    return {
      rows,
      asked,
      unclaimedBefore: (before: Date, limit: number) => {
        asked.push(limit);
        const due = [...rows].filter(([, at]) => at < before.getTime()).sort((a, b) => a[1] - b[1]);
        return Promise.resolve(due.slice(0, limit).map(([storageKey]) => ({ storageKey })));
      },
      forgetUnclaimed: (key: string) => Promise.resolve(void rows.delete(key)),
      isLiveKey: (key: string) => Promise.resolve(live.has(key)),
    };
  }

  it('works through the unclaimed keys in batches, removes their objects (never a live one), and logs what it removed', async () => {
    const t0 = Date.UTC(2026, 2, 1, 12);
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) {
      const key = storage.newKey('jpg', new Date(t0));
      await storage.put(key, Readable.from([randomBytes(100)]));
      keys.push(key);
    }
    const [live, ...orphans] = keys as [string, ...string[]];
    const young = orphans.pop()!;
    const db = table([...orphans.map((k, i): [string, number] => [k, t0 + i]), [live, t0], [young, t0 + 10 * HOUR]], new Set([live]));
    const logged: { obj: unknown; msg?: string }[] = [];
    const janitor = createMediaJanitor({ storage, ...db, logger: { warn: (obj, msg) => logged.push({ obj, msg }) }, batchSize: 2 });

    expect(await janitor.sweep(new Date(t0 + 25 * HOUR))).toEqual({ partials: 0, orphans: 3 });
    expect(db.asked).toEqual([2, 2, 2]); // 4 due keys in pages of 2, then an empty page
    for (const key of orphans) expect(await storage.stat(key)).toBeUndefined();
    expect(await storage.stat(live)).toBeDefined();
    expect(await storage.stat(young)).toBeDefined();
    expect([...db.rows.keys()]).toEqual([young]);
    expect(logged).toEqual([{ obj: { partials: 0, orphans: 3 }, msg: expect.stringMatching(/removed 0 partial upload\(s\) and 3 object\(s\)/) }]);

    // nothing due: nothing removed, nothing said
    expect(await janitor.sweep(new Date(t0 + 25 * HOUR))).toEqual({ partials: 0, orphans: 0 });
    expect(logged).toHaveLength(1);
  });

  it('runs on its timer, logs a failure instead of throwing, and stops', async () => {
    let failed!: (v: unknown) => void;
    const loggedFailure = new Promise((r) => (failed = r));
    const janitor = createMediaJanitor({
      storage,
      ...table([]),
      unclaimedBefore: () => Promise.reject(new Error('database is down')),
      logger: { warn: (obj, msg) => msg === 'media storage janitor failed' && failed(obj) },
    });
    const run = janitor.start({ clock: createManualClock(Date.UTC(2026, 5, 1)), firstDelayMs: 0, intervalMs: HOUR });
    expect(await loggedFailure).toMatchObject({ err: { message: 'database is down' } });
    await run.stop();
  });
});
