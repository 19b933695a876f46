import type { Tx } from '../../db/client.js';
import type { JobEngine } from '../../jobs/job-engine.js';
import type { VideoJobsRepository } from './video-jobs.repository.js';

export const VIDEO_QUEUE = 'video';

/**
 * Puts a video job row on the pg-boss `video` queue inside the caller's transaction (the job exists
 * only if the row commits) and records the pg-boss id on the row, so recovery can tell a queued row
 * whose job is gone. `wake` tells this process's worker to look at once.
 */
export function createVideoQueue(deps: { jobs: JobEngine; video: Pick<VideoJobsRepository, 'setBossJob'>; timeLimitMs: number }) {
  const listeners = new Set<() => void>();
  return {
    async enqueue(tx: Tx, jobId: string) {
      const bossId = await deps.jobs.send(
        VIDEO_QUEUE,
        { jobId },
        // The row is the truth and the worker retries by re-sending: pg-boss must not retry on its own.
        { retryLimit: 0, expireInSeconds: Math.ceil(deps.timeLimitMs / 1000) + 600 },
        tx,
      );
      await deps.video.setBossJob(tx, jobId, bossId);
    },
    wake() {
      for (const l of listeners) l();
    },
    onWake(fn: () => void) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

export type VideoQueue = ReturnType<typeof createVideoQueue>;
