import type { Tx } from '../db/client.js';

/**
 * The port modules call to put post rows on and off the publishing queue, always inside the
 * caller's transaction (the job exists exactly when the row's change commits). The publishing
 * engine implements it (its `publish-queue.ts`); `deps.ts` wires the two.
 */
export interface PublishQueue {
  /** Schedules `postId` to be published at `dueAt` (now or later), replacing any job it had. */
  schedule(tx: Tx, postId: string, dueAt: Date): Promise<void>;
  /** Takes `postId` off the queue (its job, if any, is cancelled and made stale). */
  cancel(tx: Tx, postId: string): Promise<void>;
  /**
   * For many new posts at once (a bulk import): `queuedColumns` are the columns a new row is
   * written with to be on the queue at `dueAt`; `sendNew` then sends their jobs in one statement.
   */
  queuedColumns(dueAt: Date): { dueAt: Date; publishJobId: string; version: number };
  sendNew(tx: Tx, posts: { postId: string; publishJobId: string; version: number; dueAt: Date }[]): Promise<void>;
  /** Tells this process's publisher that something was scheduled (call after commit). */
  notifyScheduled(dueAt: Date): void;
}

/**
 * The port the video module calls to queue a video job row, inside the caller's transaction (the
 * job exists exactly when the row commits). The video engine implements it
 * (`engines/video/video-queue.ts`); `deps.ts` wires the two.
 */
export interface VideoQueue {
  /** Puts job row `jobId` on the video queue. */
  enqueue(tx: Tx, jobId: string): Promise<void>;
  /** Tells this process's video worker to look at once (call after commit). */
  wake(): void;
}
