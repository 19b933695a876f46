import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Tx } from '../../db/client.js';
import type { media } from '../../db/schema/index.js';
import { emitEvent } from '../../core/events/events.js';
import { AppError } from '../../errors.js';
import type { JobEngine, Logger } from '../../jobs/job-engine.js';
import type { Clock } from '../../lib/clock.js';
import { noMetrics, type Metrics } from '../../core/metrics/metrics.js';
import { isUuid } from '../../lib/ids.js';
import type { RemoteFetcher } from '../../core/media/remote-fetch.js';
import type { MediaStorage } from '../../core/media/storage.js';
import type { VideoJobRow, VideoJobsRepository } from './video-jobs.repository.js';
import type { PlatformHttpClient } from '../../platforms/http.js';
import { withSignal } from '../../platforms/http.js';
import { copyMediaInto } from '../../core/video-providers/media-files.js';
import { VIDEO_FORMATS, VideoProviderError, type VideoGenerateContext, type VideoOutput, type VideoProvider } from '../../core/video-providers/provider.js';
import { VIDEO_QUEUE, type VideoQueue } from './video-queue.js';

export interface VideoWorkerOptions {
  /** encodes at a time in this process */
  concurrency: number;
  timeLimitMs: number;
  /** a worker whose heartbeat is older than this is dead: its running jobs are taken back */
  deadAfterMs: number;
  /** embedded mode: this is the only worker, so every lease found at start is a dead one */
  soleWorker: boolean;
  /** how often the queue is polled when nothing woke the loop */
  pollMs: number;
  /** largest video a remote provider may hand back */
  maxVideoBytes: number;
}

type MediaRow = typeof media.$inferSelect;

/**
 * What the worker needs of the media feature, wired in `deps.ts` (the media repository and service
 * provide them): the organisation's media items a provider reads, and storing the result through
 * the upload pipeline, with `onInsert` run in the transaction that inserts the media row.
 */
export interface VideoMediaPorts {
  findMedia(organizationId: string, id: string): Promise<MediaRow | undefined>;
}
export interface VideoResultStore {
  storeFile(organizationId: string, input: { path: string; filename: string; signal?: AbortSignal; onInsert?: (tx: Tx, row: MediaRow) => Promise<void> }): Promise<unknown>;
}

class LeaseLost extends Error {}

const jobRef = (row: { id: string; provider: string; output: string }) => ({ id: row.id, type: row.provider, output: row.output });

/**
 * SIGKILLs the processes whose command line names `dir` (Linux: read from /proc; elsewhere there is
 * nothing to read and nothing is done). Only called for scratch folders of jobs nobody runs.
 */
async function killProcessesIn(dir: string) {
  const pids = await readdir('/proc').catch(() => [] as string[]);
  for (const pid of pids) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').some((arg) => arg.includes(dir))) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already, or not ours
      }
    }
  }
}
const SHUTDOWN = 'shutdown';

/**
 * The video worker (worker processes): takes jobs from the `video` queue up to `concurrency` at a
 * time, claims each row, runs its provider under the time limit in a scratch directory
 * (`<workRoot>/jobs/<job>-<attempt>`, removed after), and stores the video through the media
 * pipeline; the media row and the job's success (credits spent) are one transaction, so a crash
 * leaves either both or neither. A failure refunds the credits. Rows held by a worker that died are
 * queued again while attempts are left (one retry by default), else failed and refunded.
 */
export function createVideoWorker(deps: {
  jobs: JobEngine;
  queue: VideoQueue;
  video: VideoJobsRepository;
  media: VideoMediaPorts;
  mediaService: VideoResultStore;
  storage: MediaStorage;
  remote: RemoteFetcher;
  http: PlatformHttpClient;
  providers: ReadonlyMap<string, VideoProvider>;
  clock: Clock;
  workerId: string;
  workRoot: string;
  options: VideoWorkerOptions;
  logger: Logger;
  /** job outcomes by provider (none: not recorded) */
  metrics?: Metrics;
}) {
  const { video, clock, workerId, options } = deps;
  const metrics = deps.metrics ?? noMetrics;
  const jobsDir = join(deps.workRoot, 'jobs');
  /** abort controllers of the jobs this process runs, by job id */
  const active = new Map<string, AbortController>();
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let sweepTimer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;

  const now = () => new Date(clock.now());

  async function putBack(id: string, giveAttemptBack: boolean, error?: string) {
    await video.transaction(async (tx) => {
      if (await video.requeue(tx, id, workerId, { giveAttemptBack, error }, now())) await deps.queue.enqueue(tx, id);
    });
    deps.queue.wake();
  }

  /** Fails a held row (refunding its credits) with its `video.failed` event, in one transaction. */
  async function failJob(id: string, owner: string | null, error: string, inTx?: Tx) {
    const work = async (tx: Tx) => {
      const at = now();
      const row = await video.fail(tx, id, owner, error, at);
      if (row) {
        await emitEvent(tx, row.organizationId, 'video.failed', { job: jobRef(row), error, credits: row.credits, failedAt: at.toISOString() }, at);
      }
    };
    await (inTx ? work(inTx) : video.transaction(work));
  }

  async function download(url: string, dir: string, signal: AbortSignal): Promise<string> {
    const file = await deps.remote.open(url, { maxBytes: options.maxVideoBytes, signal });
    const path = join(dir, 'remote-result.mp4');
    await pipeline(Readable.from(file.body), createWriteStream(path), { signal });
    return path;
  }

  async function handle(jobId: string) {
    const row = await video.claim(jobId, workerId, now());
    if (!row) return; // already taken, finished or cancelled: a stale queue job
    const ac = new AbortController();
    active.set(row.id, ac);
    const timer = setTimeout(() => ac.abort(new Error('time limit')), options.timeLimitMs);
    const workDir = join(jobsDir, `${row.id}-${row.attempts}`);
    try {
      await mkdir(workDir, { recursive: true });
      await run(row, workDir, ac.signal);
      metrics.videoJob(row.provider, 'succeeded');
    } catch (e) {
      await settleFailure(row, e, ac.signal).catch((err: unknown) => deps.logger.error({ err, jobId: row.id }, 'recording a video job failure failed'));
    } finally {
      clearTimeout(timer);
      active.delete(row.id);
      await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  async function run(row: VideoJobRow, workDir: string, signal: AbortSignal) {
    const provider = deps.providers.get(row.provider);
    if (!provider) throw new VideoProviderError(`the video provider "${row.provider}" is not available on this worker`, 'unavailable');
    const output = row.output as VideoOutput;
    // Progress: at most one write a second (and at every new stage), one at a time.
    let lastWrite = 0;
    let lastStage: string | null = null;
    let writing: Promise<unknown> = Promise.resolve();
    const progress = (fraction: number, stage?: string) => {
      const t = clock.now();
      const st = stage ?? lastStage;
      if (st === lastStage && t - lastWrite < 1000) return;
      lastWrite = t;
      lastStage = st;
      const value = Math.max(0, Math.min(1, fraction));
      writing = writing.then(() => video.progress(row.id, workerId, value, st, now())).catch(() => undefined);
    };
    const ctx: VideoGenerateContext = {
      organizationId: row.organizationId,
      jobId: row.id,
      attempt: row.attempts,
      output,
      format: VIDEO_FORMATS[output],
      workDir,
      signal,
      progress,
      saved: (row.checkpoint as Record<string, unknown> | null) ?? null,
      checkpoint: async (state) => {
        if (!(await video.saveCheckpoint(row.id, workerId, state, now()))) throw new LeaseLost();
      },
      media: async (id) => {
        const m = isUuid(id) ? await deps.media.findMedia(row.organizationId, id) : undefined;
        if (!m) throw new VideoProviderError(`media item ${id} is gone from this organisation`, 'invalid_params');
        return copyMediaInto(deps.storage, m, workDir, signal);
      },
      http: withSignal(deps.http, signal),
    };
    progress(0, 'starting');
    const result = await provider.generate(ctx, row.params);
    signal.throwIfAborted();
    const path = result.kind === 'file' ? result.path : await download(result.url, workDir, signal);
    progress(0.99, 'storing');
    await writing;
    await deps.mediaService.storeFile(row.organizationId, {
      path,
      filename: result.filename,
      signal,
      onInsert: async (tx, m) => {
        const at = now();
        if (!(await video.succeed(tx, row.id, workerId, m.id, at))) throw new LeaseLost();
        await emitEvent(
          tx,
          row.organizationId,
          'video.succeeded',
          { job: jobRef(row), media: { id: m.id, path: m.path, duration: m.duration, width: m.width, height: m.height }, credits: row.credits, completedAt: at.toISOString() },
          at,
        );
      },
    });
  }

  async function settleFailure(row: VideoJobRow, e: unknown, signal: AbortSignal) {
    if (e instanceof LeaseLost) return; // someone else holds it now
    const reason: unknown = signal.aborted ? signal.reason : undefined;
    if (reason === SHUTDOWN) return putBack(row.id, true);
    if (reason instanceof Error && reason.message === 'time limit') {
      await failJob(row.id, workerId, `the generation took longer than the time limit of ${Math.round(options.timeLimitMs / 1000)} s`);
      metrics.videoJob(row.provider, 'failed');
      return;
    }
    if (e instanceof VideoProviderError || e instanceof AppError) {
      await failJob(row.id, workerId, e.message);
      metrics.videoJob(row.provider, 'failed');
      return;
    }
    const message = e instanceof Error ? e.message : String(e);
    deps.logger.warn({ err: e, jobId: row.id, attempt: row.attempts }, 'video generation failed unexpectedly');
    if (row.attempts < row.maxAttempts) {
      await putBack(row.id, false, message);
      metrics.videoJob(row.provider, 'retry');
      return;
    }
    await failJob(row.id, workerId, `${message} (after ${row.attempts} attempts)`);
    metrics.videoJob(row.provider, 'failed');
  }

  /**
   * Takes back what dead workers held: running rows whose owner stopped beating (queued again with
   * attempts left, else failed and refunded), queued rows whose pg-boss job is gone or was taken by
   * a dead process (sent again), and scratch directories of jobs that no longer run.
   */
  async function recover(atStart: boolean) {
    const t = clock.now();
    const live = options.soleWorker ? [workerId] : await video.liveWorkers(new Date(t - options.deadAfterMs));
    for (const orphan of await video.orphanedRunning(live)) {
      if (active.has(orphan.id)) continue;
      await video.transaction(async (tx) => {
        if (orphan.attempts < orphan.maxAttempts) {
          if (await video.requeue(tx, orphan.id, orphan.owner, { giveAttemptBack: false, error: `the worker stopped during attempt ${orphan.attempts}; retrying` }, now())) {
            await deps.queue.enqueue(tx, orphan.id);
          }
        } else {
          await failJob(orphan.id, orphan.owner, `the worker stopped during the generation (${orphan.attempts} attempts)`, tx);
        }
      });
    }
    if (atStart || !options.soleWorker) {
      const ids = await video.queuedWithoutJob(VIDEO_QUEUE, options.soleWorker ? 0 : options.deadAfterMs / 1000, new Date(t - (options.soleWorker ? 0 : options.deadAfterMs)));
      for (const id of ids) await video.transaction((tx) => deps.queue.enqueue(tx, id));
    }
    const keep = new Set(await video.runningIds());
    const entries = await readdir(jobsDir).catch(() => [] as string[]);
    for (const name of entries) {
      const id = name.slice(0, 36);
      if (keep.has(name) || active.has(id)) continue;
      // An encoder started by a process that was killed outlives it (ffmpeg ignores the broken
      // pipe): stop whatever still works in the folder before removing it.
      await killProcessesIn(join(jobsDir, name));
      await rm(join(jobsDir, name), { recursive: true, force: true }).catch(() => undefined);
    }
    // Scratch folders of function calls (previews) cut off by a crash: the call cleans up after itself otherwise.
    for (const name of await readdir(deps.workRoot).catch(() => [] as string[])) {
      if (!name.startsWith('fn-')) continue;
      const info = await stat(join(deps.workRoot, name)).catch(() => undefined);
      if (info && info.mtimeMs < t - 3600_000) await rm(join(deps.workRoot, name), { recursive: true, force: true }).catch(() => undefined);
    }
    deps.queue.wake();
  }

  async function runLoop() {
    const inFlight = new Set<Promise<void>>();
    while (running) {
      const free = options.concurrency - inFlight.size;
      if (free > 0) {
        try {
          const fetched = (await deps.jobs.boss.fetch<{ jobId: string }>(VIDEO_QUEUE, { batchSize: free })) ?? [];
          for (const job of fetched) {
            const p = handle(job.data.jobId)
              .catch((err: unknown) => deps.logger.error({ err, jobId: job.data.jobId }, 'video job failed'))
              .then(() => deps.jobs.boss.complete(VIDEO_QUEUE, job.id).catch(() => undefined))
              .then(() => {
                inFlight.delete(p);
                wakeUp?.();
              });
            inFlight.add(p);
          }
          if (fetched.length > 0) continue;
        } catch (err) {
          if (running) deps.logger.warn({ err }, 'fetching video jobs failed');
        }
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = undefined;
    }
    await Promise.all(inFlight);
  }

  return {
    async start() {
      if (running) return;
      await deps.jobs.ensureQueue(VIDEO_QUEUE);
      await mkdir(jobsDir, { recursive: true });
      await recover(true);
      running = true;
      unsubscribe = deps.queue.onWake(() => wakeUp?.());
      loop = runLoop();
      if (!options.soleWorker) {
        sweepTimer = setInterval(() => {
          recover(false).catch((err: unknown) => deps.logger.warn({ err }, 'video job recovery failed'));
        }, Math.max(options.deadAfterMs, 5000));
        sweepTimer.unref();
      }
    },
    /** Stops taking jobs; running encodes are stopped and their rows queued again (the attempt given back). */
    async stop() {
      if (!running) return;
      running = false;
      clearInterval(sweepTimer);
      unsubscribe?.();
      for (const ac of active.values()) ac.abort(SHUTDOWN);
      wakeUp?.();
      await loop;
    },
    /** Test hook: the recovery sweep, as at start. */
    recover: () => recover(true),
  };
}

export type VideoWorker = ReturnType<typeof createVideoWorker>;
