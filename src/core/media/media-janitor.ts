import type { Clock } from '../../lib/clock.js';
import { runPeriodically } from '../../lib/periodic.js';
import { renditionKeys } from './renditions.js';
import type { MediaStorage } from './storage.js';

/** An unclaimed key this old is abandoned: no upload streams for a day (one still streaming is younger). */
export const MEDIA_UNCLAIMED_GRACE_MS = 24 * 3600_000;
/** A partial upload (temp file, unfinished multipart upload) idle this long is abandoned. */
export const MEDIA_PARTIAL_IDLE_MS = 3600_000;
const BATCH_SIZE = 500;

export interface MediaJanitorDeps {
  storage: MediaStorage;
  /** the `media_unclaimed` keys recorded before `before`, oldest first */
  unclaimedBefore(before: Date, limit: number): Promise<{ storageKey: string }[]>;
  forgetUnclaimed(storageKey: string): Promise<void>;
  /** whether a live media row names the key (then its object is never removed) */
  isLiveKey(storageKey: string): Promise<boolean>;
  logger: { warn(obj: unknown, msg?: string): void };
  graceMs?: number;
  partialIdleMs?: number;
  batchSize?: number;
}

export interface MediaSweepResult {
  /** partial uploads removed (temp files, unfinished multipart uploads) */
  partials: number;
  /** objects removed whose upload or deletion a crash interrupted */
  orphans: number;
}

/**
 * Removes what a crash leaves in media storage, and only that:
 * - partial uploads (a process killed during `put`), once idle for `partialIdleMs`;
 * - objects whose key is still in `media_unclaimed` after `graceMs`: the upload recorded the key
 *   before writing and the row insert would have removed it (killed in between), or a soft delete
 *   recorded it and the removal of the object did not finish.
 * It never lists the folder or bucket to guess: an object this database did not record (another
 * installation's, a restored backup's) is never touched, and a key a live row names never is.
 */
export function createMediaJanitor(deps: MediaJanitorDeps) {
  const { storage, logger } = deps;
  const graceMs = deps.graceMs ?? MEDIA_UNCLAIMED_GRACE_MS;
  const partialIdleMs = deps.partialIdleMs ?? MEDIA_PARTIAL_IDLE_MS;
  const batchSize = deps.batchSize ?? BATCH_SIZE;
  let running: Promise<MediaSweepResult> | undefined;

  async function run(now: Date, signal?: AbortSignal): Promise<MediaSweepResult> {
    const t = now.getTime();
    const result: MediaSweepResult = { partials: await storage.sweepPartial(new Date(t - partialIdleMs)), orphans: 0 };
    for (;;) {
      const batch = await deps.unclaimedBefore(new Date(t - graceMs), batchSize);
      for (const { storageKey } of batch) {
        if (signal?.aborted) break;
        if (!(await deps.isLiveKey(storageKey))) {
          // Its renditions (pictures converted for platforms) go with it.
          await Promise.all(renditionKeys(storageKey).map((k) => storage.delete(k)));
          await storage.delete(storageKey);
          result.orphans++;
        }
        await deps.forgetUnclaimed(storageKey);
      }
      if (batch.length < batchSize || signal?.aborted) break;
    }
    if (result.partials > 0 || result.orphans > 0) {
      logger.warn(result, `media storage janitor removed ${result.partials} partial upload(s) and ${result.orphans} object(s) left by an interrupted upload or deletion`);
    }
    return result;
  }

  /** One sweep at time `now` (one at a time: a call during a sweep waits for it, then runs). */
  async function sweep(now: Date, signal?: AbortSignal): Promise<MediaSweepResult> {
    while (running) await running.catch(() => undefined);
    const current = run(now, signal);
    running = current;
    try {
      return await current;
    } finally {
      running = undefined;
    }
  }

  return {
    sweep,

    /**
     * Sweeps `firstDelayMs` after the call, then every `intervalMs`; failures are logged, never
     * thrown; the timers do not keep the process alive. `stop()` clears them and ends (and awaits)
     * a sweep under way.
     */
    start(opts: { clock: Clock; firstDelayMs: number; intervalMs: number }) {
      return runPeriodically((signal) => sweep(new Date(opts.clock.now()), signal), {
        firstDelayMs: opts.firstDelayMs,
        intervalMs: opts.intervalMs,
        onError: (err) => logger.warn({ err }, 'media storage janitor failed'),
      });
    },
  };
}

export type MediaJanitor = ReturnType<typeof createMediaJanitor>;
