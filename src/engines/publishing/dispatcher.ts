import { createWakeLoop } from '../../lib/wake-loop.js';
import { Semaphore } from '../../lib/semaphore.js';
import { isDatabaseUnavailable } from '../../lib/database-unavailable.js';
import type { Database } from '../../db/client.js';
import type { JobEngine } from '../../jobs/job-engine.js';
import type { Clock } from '../../lib/clock.js';
import type { PlatformAdapter, PlatformIdentifier } from '../../platforms/platform.js';
import { isPlatformIdentifier } from '../../platforms/platform.js';
import type { Publisher } from './publisher.js';
import type { HeartbeatRepository } from './heartbeat.repository.js';
import { PUBLISH_CHANNEL, PUBLISH_QUEUE, type PublishJobData, type PublishingQueue } from './publish-queue.js';
import type { PublishingRepository } from './publishing.repository.js';

export interface DispatcherOptions {
  /** publish jobs one worker process holds at once */
  capacity: number;
  /** longest sleep between looks at the queue (a safety net: wake-ups come from NOTIFY and timers) */
  maxIdleMs: number;
  /** a worker whose heartbeat is older than this is dead; its leased posts are taken over */
  deadAfterMs: number;
  /** embedded mode: this is the only process, so every other lease is a dead one */
  soleWorker: boolean;
}

/**
 * The worker side of publishing. It sleeps until exactly the next due job (the earliest
 * `start_after` of the publish queue, re-read whenever a job is scheduled anywhere: NOTIFY from
 * other processes, a direct call in this one), so pg-boss's polling interval never sets the lag.
 * Jobs it takes are leased to this worker on the post row; a worker that dies leaves leases that
 * the others (or its own restart) take over. Concurrency: `capacity` jobs per process, and per
 * platform and per channel the limits of the platform's metadata (per process; the channel's for
 * the whole job, the platform's until its request is answered).
 */
export function createDispatcher(deps: {
  /** listens for jobs scheduled by other processes */
  database: Pick<Database, 'listen'>;
  posts: PublishingRepository;
  heartbeats: Pick<HeartbeatRepository, 'findLiveWorkerIds'>;
  jobs: JobEngine;
  queue: PublishingQueue;
  publisher: Publisher;
  adapters: Record<PlatformIdentifier, PlatformAdapter>;
  clock: Clock;
  workerId: string;
  beat: () => Promise<void>;
  heartbeatMs: number;
  options: DispatcherOptions;
  logger: { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void };
}) {
  const { database, jobs, posts, options } = deps;
  const platformSlots = new Map<string, Semaphore>();
  const channelSlots = new Map<string, Semaphore>();
  const held = new Set<string>();
  /**
   * Posts whose jobs this process fetched but could not lease (the database went away in between):
   * the next recovery pass takes them back, instead of waiting, as for a dead process's, until
   * the job is `deadAfterMs` old (they were up to 20 s late after a PostgreSQL restart).
   */
  const fetchedNotLeased = new Set<string>();
  let running = false;
  const stops: (() => Promise<void> | void)[] = [];
  const inflight = new Set<Promise<void>>();
  let lastBeat = 0;
  const refillBatch = Math.max(1, Math.floor(options.capacity / 5));
  let lastRecovery = 0;
  // Jobs whose publish is over, completed in pg-boss together at the next round (one statement and
  // one commit for all of them, not one each). The row's outcome is already committed, so a job
  // left 'active' by a crash before this only expires; its re-run finds the row done and stops.
  const finished: string[] = [];

  async function completeFinished() {
    if (finished.length === 0) return;
    const ids = finished.splice(0, finished.length);
    try {
      await jobs.boss.complete(PUBLISH_QUEUE, ids);
    } catch (err) {
      finished.push(...ids);
      throw err;
    }
  }

  // When the sleeping loop wakes by itself (epoch ms): a job scheduled for that time or later is
  // found then, so its notice needs no look at the queue now. While slots are nearly all taken it is
  // -Infinity: a finishing job wakes the loop, which then looks. A round in progress always goes again.
  let wakesAt = -Infinity;
  let inRound = false;
  const wakeLoop = createWakeLoop({
    maxIdleMs: options.maxIdleMs,
    onError: (err) => {
      wakesAt = -Infinity;
      deps.logger.error({ err }, 'publisher loop failed; retrying');
    },
    async round() {
      inRound = true;
      try {
        await tick();
        if (held.size > 0 && options.capacity - held.size < refillBatch) {
          wakesAt = -Infinity;
          return undefined;
        }
        const due = await nextDue();
        // pg-boss takes jobs whose start is strictly before its now(): wake just after.
        const sleep = due === undefined ? options.maxIdleMs : Math.min(options.maxIdleMs, due - Date.now() + 2);
        wakesAt = Date.now() + sleep;
        return sleep;
      } finally {
        inRound = false;
      }
    },
  });
  const poke = () => wakeLoop.poke();
  /** A job was scheduled for `dueAt` (this process or a NOTIFY from another): look now only if it is due before the loop wakes anyway. */
  const scheduled = (dueAt: Date | undefined) => {
    const at = dueAt?.getTime();
    if (inRound || at === undefined || Number.isNaN(at) || at < wakesAt) poke();
  };

  function slotFor(map: Map<string, Semaphore>, key: string, limit: number) {
    let s = map.get(key);
    if (!s) {
      s = new Semaphore(Math.max(1, limit));
      map.set(key, s);
    }
    return s;
  }

  /** The earliest start of a job waiting in the queue (pg-boss's own table, read only). */
  function nextDue(): Promise<number | undefined> {
    return posts.findNextDueAt(PUBLISH_QUEUE);
  }

  /** Leases fetched jobs' rows to this worker and learns their channel and platform. */
  async function lease(jobsData: PublishJobData[]) {
    if (jobsData.length === 0) return new Map<string, { integrationId: string; identifier: string }>();
    // Only rows whose version is the job's: a stale job must not take the lease of a live one.
    const rows = await posts.leaseRows(jobsData, deps.workerId);
    return new Map(rows.map((r) => [r.id, { integrationId: r.integrationId, identifier: r.identifier }]));
  }

  /**
   * Queued rows leased to a worker that is gone (or to this one, but not held: a job that failed
   * unexpectedly) are rescheduled; an attempt left `sending` is then reconciled by the new job.
   */
  async function recover() {
    const now = deps.clock.now();
    const live = options.soleWorker ? [deps.workerId] : await deps.heartbeats.findLiveWorkerIds(new Date(now - options.deadAfterMs));
    const orphans = await posts.findLeasedToOthers(live);
    const mine = await posts.findLeasedTo(deps.workerId);
    // A job fetched by a process that died (or whose lease failed) before the row was leased is
    // `active` in pg-boss with no lease on the row: nobody runs it, and on expiry it only fails.
    // Another live worker leases what it fetched within moments, so only older ones are taken.
    const unleasedIds = [...new Set([...(await posts.findUnleasedStarted(PUBLISH_QUEUE, options.soleWorker ? 0 : options.deadAfterMs / 1000)), ...fetchedNotLeased])];
    const unleased = unleasedIds.map((id) => ({ id, dueAt: null, owner: null }));
    const stray = [...orphans, ...mine.filter((r) => !held.has(r.id)), ...unleased.filter((r) => !held.has(r.id))];
    for (const r of stray) {
      await posts.transaction(async (tx) => {
        const row = await posts.lockPost(tx, r.id);
        if (!row || row.state !== 'QUEUE' || row.leaseOwner !== r.owner || (r.owner === deps.workerId && held.has(r.id))) return;
        await deps.queue.schedule(tx, row.id, new Date(Math.max(now, row.dueAt?.getTime() ?? now)));
      });
      fetchedNotLeased.delete(r.id);
    }
    if (stray.length > 0) deps.logger.warn({ count: stray.length }, 'publisher took over posts leased to a stopped worker');
  }

  async function runJob(job: { id: string; data: PublishJobData }, route: { integrationId: string; identifier: string } | undefined) {
    const limits = route && isPlatformIdentifier(route.identifier) ? deps.adapters[route.identifier].metadata.concurrency : { perPlatform: 1, perChannel: 1 };
    const platform = slotFor(platformSlots, route?.identifier ?? '?', limits.perPlatform);
    const channel = slotFor(channelSlots, route?.integrationId ?? '?', limits.perChannel);
    // The channel's slot for the whole job (its posts go one after the other, in order); the
    // platform's from before the claim until the platform answered, not while the outcome is written.
    await channel.acquire();
    await platform.acquire();
    let platformHeld = true;
    const requestDone = () => {
      if (!platformHeld) return;
      platformHeld = false;
      platform.release();
    };
    try {
      await deps.publisher.handle(job.data, requestDone);
      finished.push(job.id);
    } catch (err) {
      deps.logger.error({ err, jobId: job.id, postId: job.data.postId }, 'publish job failed unexpectedly; it will be retried');
      await jobs.boss.fail(PUBLISH_QUEUE, job.id, { message: String(err) }).catch(() => undefined);
      // Released below; the next recovery pass reschedules the row (it stays leased to us). When
      // the database was away, that is the next round's, not the periodic one: the posts whose
      // jobs failed during an outage were up to 15 s late (test/e2e/faults.test.ts). Any other
      // failure waits for the periodic pass, so a job that always throws does not spin.
      if (isDatabaseUnavailable(err)) lastRecovery = 0;
    } finally {
      requestDone();
      channel.release();
      held.delete(job.data.postId);
    }
  }

  async function tick() {
    const now = deps.clock.now();
    if (now - lastBeat >= deps.heartbeatMs) {
      await deps.beat();
      lastBeat = now;
    }
    await completeFinished();
    if (now - lastRecovery >= Math.min(options.deadAfterMs, 30_000)) {
      lastRecovery = now;
      // A pass that failed (the database away) is tried again at the next round.
      await recover().catch((err: unknown) => {
        lastRecovery = 0;
        throw err;
      });
    }
    // Refill in batches: while many jobs are held, one finishing job does not cost a fetch, a lease
    // and a look at the queue each (they would be one-row queries); an idle worker fetches at once.
    let free = options.capacity - held.size;
    if (held.size > 0 && free < refillBatch) return;
    while (free > 0 && running) {
      const fetched = (await jobs.boss.fetch<PublishJobData>(PUBLISH_QUEUE, { batchSize: free })) ?? [];
      if (fetched.length === 0) break;
      // Fewer than asked: the queue has no more due now, so no second fetch to learn it.
      const drained = fetched.length < free;
      let routes: Awaited<ReturnType<typeof lease>>;
      try {
        routes = await lease(fetched.map((j) => j.data));
      } catch (err) {
        for (const job of fetched) fetchedNotLeased.add(job.data.postId);
        if (isDatabaseUnavailable(err)) lastRecovery = 0;
        throw err;
      }
      for (const job of fetched) {
        held.add(job.data.postId);
        const p = runJob(job, routes.get(job.data.postId)).finally(() => {
          inflight.delete(p);
          poke();
        });
        inflight.add(p);
      }
      free = options.capacity - held.size;
      if (drained) break;
    }
  }

  return {
    async start() {
      if (running) return;
      await jobs.ensureQueue(PUBLISH_QUEUE);
      running = true;
      stops.push(deps.queue.onScheduled((dueAt) => scheduled(dueAt)));
      stops.push(await database.listen(PUBLISH_CHANNEL, (payload) => scheduled(new Date(payload))));
      await deps.beat();
      lastBeat = deps.clock.now();
      await recover().catch((err: unknown) => deps.logger.error({ err }, 'publisher recovery failed'));
      lastRecovery = deps.clock.now();
      wakeLoop.start();
    },
    /** Stops taking jobs and waits for the ones in progress (a publish is never cut midway on purpose). */
    async stop(timeoutMs = 30_000) {
      if (!running) return;
      running = false;
      await wakeLoop.stop();
      for (const s of stops.splice(0)) await s();
      await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
      await completeFinished().catch((err: unknown) => deps.logger.warn({ err }, 'publish jobs left active; they expire and their re-runs stop at the finished rows'));
    },
    /** Looks at the queue now (tests; a scheduling elsewhere in this process does it by itself). */
    poke,
    get held() {
      return held.size;
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;

