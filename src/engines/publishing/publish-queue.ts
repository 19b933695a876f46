import { randomUUID } from 'node:crypto';
import type { Database, Tx } from '../../db/client.js';
import type { JobEngine } from '../../jobs/job-engine.js';
import type { PublishingRepository } from './publishing.repository.js';

export const PUBLISH_QUEUE = 'publish';
/** PostgreSQL NOTIFY channel: a publish job was scheduled (workers in other processes wake). */
export const PUBLISH_CHANNEL = 'tidings_publish';

export interface PublishJobData {
  postId: string;
  /** the post row's `version` when the job was sent; a job whose version is stale does nothing */
  version: number;
}

/**
 * The one place that puts post rows on and off the publishing queue, always inside the caller's
 * transaction: the job exists exactly when the row's change commits. Every schedule or cancel
 * bumps the row's `version`, so at most one job per row is ever current — an older job that still
 * runs (cancelled too late, expired, recovered) finds a different version and does nothing.
 * Modules see it as the `PublishQueue` port (`core/queues.ts`); the dispatcher also listens to it.
 */
export function createPublishQueue(deps: { database: Database; jobs: JobEngine | undefined; posts: PublishingRepository }) {
  const listeners = new Set<(dueAt: Date) => void>();
  // The earliest due time each open transaction has already announced: a later one adds nothing (a
  // dispatcher woken for the earlier job reads the queue then), so a request scheduling five posts
  // for one time sends one NOTIFY, not five.
  const announced = new WeakMap<Tx, number>();

  return {
    /** Schedules `postId` to be published at `dueAt` (now or later), replacing any job it had. */
    async schedule(tx: Tx, postId: string, dueAt: Date): Promise<void> {
      if (!deps.jobs) throw new Error('The job engine is not running in this process');
      // The job's id is chosen here, so the row names it in the same statement that bumps its version.
      const jobId = randomUUID();
      const row = await deps.posts.bumpForSchedule(tx, postId, dueAt, jobId);
      if (!row) return;
      if (row.oldJob) await cancelJob(tx, row.oldJob);
      const data: PublishJobData = { postId, version: row.version };
      await deps.jobs.send(PUBLISH_QUEUE, data, { id: jobId, startAfter: dueAt, retryLimit: 0, expireInSeconds: 15 * 60 }, tx);
      const earlier = announced.get(tx);
      if (earlier === undefined || dueAt.getTime() < earlier) {
        await deps.posts.notifyPublishers(tx, PUBLISH_CHANNEL, dueAt);
        announced.set(tx, dueAt.getTime());
      }
    },

    /** The columns a new post row is written with to be on the queue at `dueAt` (its job sent by `sendNew`). */
    queuedColumns(dueAt: Date) {
      return { dueAt, publishJobId: randomUUID(), version: 1 };
    },

    /** The jobs of new rows written with `queuedColumns`, in one statement per thousand. */
    async sendNew(tx: Tx, rows: { postId: string; publishJobId: string; version: number; dueAt: Date }[]): Promise<void> {
      if (!deps.jobs) throw new Error('The job engine is not running in this process');
      if (rows.length === 0) return;
      for (let i = 0; i < rows.length; i += 1000) {
        const jobs = rows.slice(i, i + 1000).map((r) => {
          const data: PublishJobData = { postId: r.postId, version: r.version };
          return { id: r.publishJobId, name: PUBLISH_QUEUE, data, startAfter: r.dueAt.toISOString(), retryLimit: 0, expireInSeconds: 15 * 60 };
        });
        await deps.jobs.boss.insert(jobs, { db: deps.database.sqlIn(tx) });
      }
      const earliest = Math.min(...rows.map((r) => r.dueAt.getTime()));
      const earlier = announced.get(tx);
      if (earlier === undefined || earliest < earlier) {
        await deps.posts.notifyPublishers(tx, PUBLISH_CHANNEL, new Date(earliest));
        announced.set(tx, earliest);
      }
    },

    /** Takes `postId` off the queue (its job, if any, is cancelled and made stale). */
    async cancel(tx: Tx, postId: string): Promise<void> {
      const row = await deps.posts.bumpForCancel(tx, postId);
      if (row?.oldJob) await cancelJob(tx, row.oldJob);
    },

    /** Tells this process's publisher that something was scheduled (call after commit). */
    notifyScheduled(dueAt: Date) {
      for (const l of listeners) l(dueAt);
    },

    /** Calls `listener` whenever this process schedules something (the dispatcher wakes). */
    onScheduled(listener: (dueAt: Date) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };

  async function cancelJob(tx: Tx, jobId: string) {
    // A job that already finished or is running is not cancelled; its stale version stops it.
    await deps.jobs?.boss.cancel(PUBLISH_QUEUE, jobId, { db: deps.database.sqlIn(tx) });
  }
}

/** The queue as the engine uses it: the `PublishQueue` port, and its listeners. */
export type PublishingQueue = ReturnType<typeof createPublishQueue>;
