import { createWakeLoop } from '../../lib/wake-loop.js';
import type { Database, Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { noMetrics, type Metrics } from '../../core/metrics/metrics.js';
import { emitEvent, notifyIn, WEBHOOK_CHANNEL } from '../../core/events/events.js';
import { createDeliveryRepository, type DeliveryChange, type DeliveryRow, type WebhookRow } from './delivery.repository.js';
import type { SendResult, WebhookSender } from './send.js';

/**
 * When a failed delivery is tried again, counted from the attempt that failed: the first attempt
 * is made at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h — 8 attempts over about
 * 27.6 hours — after which the delivery is `failed`. Each delay varies by ±10 % (`RETRY_JITTER`),
 * so receivers that come back after an outage are not hit by every webhook in the same second.
 */
export const WEBHOOK_RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000] as const;

/** Each retry delay is multiplied by a random factor in [1 − RETRY_JITTER, 1 + RETRY_JITTER). */
export const RETRY_JITTER = 0.1;

/** Attempts before a delivery is given up (the first one plus one per retry delay). */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;

/** A webhook whose deliveries have failed without a success for this long is disabled. */
export const WEBHOOK_FAILING_DISABLE_MS = 24 * 3_600_000;

/** How long a worker holds a delivery it is sending; past it, another worker sends it again (same `webhook-id`). */
export const WEBHOOK_LEASE_MS = 60_000;

export interface WebhookDeliveryOptions {
  /** requests in flight per process (config WEBHOOK_CONCURRENCY) */
  concurrency: number;
  /** requests in flight per webhook and process (config WEBHOOK_CONCURRENCY_PER_WEBHOOK) */
  perWebhook: number;
  /** longest sleep between looks at the table (a safety net: wake-ups come from NOTIFY and timers) */
  maxIdleMs: number;
  /** embedded mode: this is the only process, so every lease found at start is a dead incarnation's */
  soleWorker: boolean;
  /**
   * A worker whose heartbeat (`worker_heartbeats`, written by the publisher's loop in the same
   * process) is older than this is dead: its leases are taken over at once instead of waiting out
   * the 60 s lease. Absent: only run-out leases are taken.
   */
  deadAfterMs?: number;
  /** random numbers in [0, 1) for the jitter (tests may fix it) */
  random?: () => number;
}

type Logger = { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void };

/** The delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed; undefined: give up. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | undefined {
  const base = WEBHOOK_RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
}

/** The JSON body of a delivery: serialized once, and these exact bytes are signed and sent. */
export function deliveryBody(event: { id: string; type: string; createdAt: Date; payload: unknown }): string {
  return JSON.stringify({ id: event.id, type: event.type, timestamp: event.createdAt.toISOString(), data: event.payload });
}

/**
 * The webhook delivery worker (worker processes). It leases due deliveries with one statement
 * (`lease_owner` = this worker, `lease_until` = now + 60 s), sends each through `sender`, and
 * writes each attempt's outcome in one transaction: the log row, the delivery's new state, and
 * for the webhook its failing streak or its disabling. Work is taken:
 * - when due: `next_attempt_at` reached, never leased or its lease ran out (a dead worker's);
 * - in order per post: a delivery waits while an earlier one (`seq`) of the same webhook with the
 *   same `ordering_key` is still pending (delivered, failed or cancelled ones release it);
 * - within limits: `concurrency` requests in flight per process and `perWebhook` per webhook, so a
 *   receiver that hangs until the timeout holds at most `perWebhook` slots and never delays others.
 * It wakes on NOTIFY `tidings_webhooks` (sent when deliveries are queued), at the next due time, when
 * a send finishes, and every `maxIdleMs` as a fallback. Times come from `clock` (tests move it).
 */
export function createWebhookDelivery(deps: {
  database: Database;
  sender: WebhookSender;
  secretBox: SecretBox;
  clock: Clock;
  workerId: string;
  options: WebhookDeliveryOptions;
  logger: Logger;
  /** delivery outcomes (none: not recorded) */
  metrics?: Metrics;
}) {
  const { database, options, clock } = deps;
  const metrics = deps.metrics ?? noMetrics;
  const repo = createDeliveryRepository(database);
  const random = options.random ?? Math.random;
  /** in-flight sends per webhook id */
  const busy = new Map<string, number>();
  const inflight = new Set<Promise<void>>();
  let running = false;
  let stopListening: (() => Promise<void>) | undefined;
  /** leasing is serialised in this process: the slot counts it reads must not change under it */
  let leasing: Promise<unknown> = Promise.resolve();

  const wakeLoop = createWakeLoop({
    maxIdleMs: options.maxIdleMs,
    onError: (err) => deps.logger.error({ err }, 'webhook delivery loop failed; retrying'),
    async round() {
      await fill();
      const due = await nextDue();
      return due === undefined ? undefined : due - clock.now();
    },
  });
  const poke = () => wakeLoop.poke();

  let pokeSoon: NodeJS.Timeout | undefined;
  /**
   * A finished send frees a slot; the slots freed within a few milliseconds are refilled by one
   * lease instead of one each (on the embedded database every statement counts).
   */
  function slotFreed() {
    pokeSoon ??= setTimeout(() => {
      pokeSoon = undefined;
      poke();
    }, 5);
  }

  /** Leases up to `limit` due deliveries within the per-webhook limits (one statement). */
  async function lease(limit: number): Promise<{ id: string; webhookId: string }[]> {
    const now = new Date(clock.now()).toISOString();
    const leaseUntil = new Date(clock.now() + WEBHOOK_LEASE_MS).toISOString();
    const busyJson = JSON.stringify(Object.fromEntries(busy));
    const deadBefore = options.deadAfterMs === undefined ? null : new Date(clock.now() - options.deadAfterMs).toISOString();
    return repo.lease({ now, workerId: deps.workerId, leaseUntil, busyJson, perWebhook: options.perWebhook, limit, deadBefore });
  }

  /** The next time something may become takeable without a NOTIFY: a retry falls due or a lease runs out. */
  async function nextDue(): Promise<number | undefined> {
    const now = new Date(clock.now()).toISOString();
    return repo.nextDue(now);
  }

  /** Leases what fits in the free slots and starts sending it; returns how many were started. */
  function fill(): Promise<number> {
    const run = leasing.then(async () => {
      let started = 0;
      for (;;) {
        const free = options.concurrency - inflight.size;
        if (free <= 0) break;
        const taken = await lease(free);
        const loaded = await load(taken.map((d) => d.id));
        for (const d of taken) {
          busy.set(d.webhookId, (busy.get(d.webhookId) ?? 0) + 1);
          const p = handle(loaded.get(d.id))
            .catch((err: unknown) => deps.logger.error({ err, deliveryId: d.id }, 'webhook delivery failed unexpectedly; its lease will run out and it will be sent again'))
            .finally(() => {
              const n = (busy.get(d.webhookId) ?? 1) - 1;
              if (n <= 0) busy.delete(d.webhookId);
              else busy.set(d.webhookId, n);
              inflight.delete(p);
              slotFreed();
            });
          inflight.add(p);
        }
        started += taken.length;
        // A lease takes every webhook's free slots at once, so fewer than asked means nothing
        // more is takeable now.
        if (taken.length < free) break;
      }
      return started;
    });
    leasing = run.catch(() => undefined);
    return run;
  }

  async function releaseAs(tx: Tx, deliveryId: string, set: DeliveryChange) {
    await repo.releaseAs(tx, deliveryId, deps.workerId, set);
  }

  /**
   * Disables a webhook the service gave up on (410 Gone, failing for 24 h): its pending
   * deliveries are cancelled (`except` is the one being decided by the caller), the organisation
   * is notified, and `webhook.disabled` goes to its other webhooks (this one is no longer enabled).
   */
  async function disable(tx: Tx, hook: { id: string; organizationId: string; name: string; url: string }, reason: string, at: Date, except: string) {
    if (!(await repo.disableWebhook(tx, hook.id, reason, at))) return;
    await repo.cancelPending(tx, hook.id, except, at);
    await notifyIn(tx, hook.organizationId, `Webhook "${hook.name}" (${hook.url}) was disabled: ${reason}.`, null, at);
    await emitEvent(tx, hook.organizationId, 'webhook.disabled', { webhook: { id: hook.id, name: hook.name, url: hook.url }, reason }, at);
  }

  /** The leased deliveries with their events and webhooks, in one query. */
  const load = (ids: string[]) => repo.load(ids);

  /** Sends one leased delivery and records the outcome. */
  async function handle(row: Awaited<ReturnType<typeof load>> extends Map<string, infer R> ? R | undefined : never) {
    if (!row || row.delivery.state !== 'pending' || row.delivery.leaseOwner !== deps.workerId) return;
    const { delivery, event, webhook } = row;
    const deliveryId = delivery.id;

    if (!webhook.enabled || webhook.deletedAt) {
      const at = new Date(clock.now());
      await repo.transaction((tx) => releaseAs(tx, deliveryId, { state: 'cancelled', nextAttemptAt: null, updatedAt: at }));
      metrics.webhookDelivery('cancelled');
      return;
    }

    const at = new Date(clock.now());
    let secrets: string[];
    try {
      secrets = [deps.secretBox.open(webhook.secret)];
      if (webhook.previousSecret && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt.getTime() > at.getTime()) {
        secrets.push(deps.secretBox.open(webhook.previousSecret));
      }
    } catch (err) {
      // Sealed with a key this process no longer has (CREDENTIALS_SECRET changed without
      // CREDENTIALS_SECRET_PREVIOUS): nothing can be signed. A failed attempt in the log says so
      // and follows the retry schedule, instead of a lease running out again and again unseen.
      const message = `the webhook's signing secret cannot be opened (${err instanceof Error ? err.message : String(err)})`;
      await record(delivery, webhook, { status: undefined, ok: false, snippet: null, error: message, durationMs: 0 }, at);
      return;
    }
    const result = await deps.sender.send({ url: webhook.url, messageId: delivery.id, body: deliveryBody(event), secrets, at });
    await record(delivery, webhook, result, at);
  }

  interface Success {
    deliveryId: string;
    webhookId: string;
    attempt: number;
    result: SendResult;
    at: Date;
    done: Date;
    settle(err?: Error): void;
  }
  /** successes waiting to be written; written together by one transaction (group commit) */
  const successes: Success[] = [];
  let writingSuccesses = false;

  /**
   * Writes the waiting successes, up to 500 a transaction, until none wait. While one batch is
   * written the next gathers, so under load one commit records many deliveries (on the single
   * connection of the embedded database, a transaction per delivery was the limit), and when idle
   * a success is written at once.
   */
  async function writeSuccesses() {
    writingSuccesses = true;
    try {
      while (successes.length > 0) {
        const batch = successes.splice(0, 500);
        const rows = batch.map((b) => ({
          id: b.deliveryId,
          webhook_id: b.webhookId,
          attempt: b.attempt,
          status: b.result.status ?? null,
          duration_ms: b.result.durationMs,
          snippet: b.result.snippet,
          at: b.at.toISOString(),
          done: b.done.toISOString(),
        }));
        try {
          // One statement (so one commit): see DeliveryRepository.recordSuccesses.
          await repo.recordSuccesses(rows, deps.workerId);
          for (const b of batch) b.settle();
        } catch (err) {
          for (const b of batch) b.settle(err instanceof Error ? err : new Error('recording webhook deliveries failed', { cause: err }));
        }
      }
    } finally {
      writingSuccesses = false;
    }
  }

  function recordSuccess(entry: Omit<Success, 'settle'>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      successes.push({ ...entry, settle: (err) => (err ? reject(err) : resolve()) });
      if (!writingSuccesses) void writeSuccesses();
    });
  }

  async function record(delivery: DeliveryRow, hook: WebhookRow, result: SendResult, at: Date) {
    const attempt = delivery.attempts + 1;
    const done = new Date(clock.now());
    if (result.ok) {
      await recordSuccess({ deliveryId: delivery.id, webhookId: hook.id, attempt, result, at, done });
      metrics.webhookDelivery('delivered');
      return;
    }
    const retried = await repo.transaction(async (tx) => {
      const outcome = { attempts: attempt, lastStatus: result.status ?? null, lastError: result.error, updatedAt: done };
      let nextAttemptAt: Date | null = null;
      // A failure locks the webhook row first: outcomes of its concurrent deliveries decide its
      // failing streak and its disabling one after the other (successes only end the streak,
      // without the lock, in writeSuccesses).
      const webhook = (await repo.lockWebhook(tx, hook.id)) ?? hook;

      if (result.status === 410) {
        await releaseAs(tx, delivery.id, { ...outcome, state: 'failed', nextAttemptAt: null });
        await disable(tx, webhook, 'the receiver answered 410 Gone', done, delivery.id);
      } else if (webhook.failingSince && done.getTime() - webhook.failingSince.getTime() > WEBHOOK_FAILING_DISABLE_MS) {
        await releaseAs(tx, delivery.id, { ...outcome, state: 'failed', nextAttemptAt: null });
        await disable(tx, webhook, 'its deliveries have been failing for 24 hours', done, delivery.id);
      } else {
        if (!webhook.failingSince) await repo.markFailingSince(tx, webhook.id, at);
        const delay = retryDelayMs(attempt, random);
        nextAttemptAt = delay === undefined ? null : new Date(done.getTime() + delay);
        await releaseAs(tx, delivery.id, { ...outcome, state: nextAttemptAt ? 'pending' : 'failed', nextAttemptAt });
      }

      await repo.insertAttempt(tx, {
        deliveryId: delivery.id,
        webhookId: webhook.id,
        attempt,
        statusCode: result.status ?? null,
        durationMs: result.durationMs,
        responseSnippet: result.snippet,
        error: result.error,
        at,
        nextAttemptAt,
      });
      return nextAttemptAt !== null;
    });
    metrics.webhookDelivery(retried ? 'retry' : 'failed');
  }

  /** Embedded mode: leases found at start were taken by this process's previous incarnation, which is gone. */
  async function releaseDeadLeases() {
    if (!options.soleWorker) return;
    const released = await repo.releaseAllLeases();
    if (released > 0) deps.logger.warn({ count: released }, 'webhook deliveries leased before a restart are sent again');
  }

  return {
    async start() {
      if (running) return;
      running = true;
      stopListening = await database.listen(WEBHOOK_CHANNEL, () => poke());
      await releaseDeadLeases().catch((err: unknown) => deps.logger.error({ err }, 'releasing webhook leases at start failed'));
      wakeLoop.start();
    },
    /** Stops taking deliveries and waits for the sends in flight (each ends within the send timeout). */
    async stop(timeoutMs = 30_000) {
      if (!running) return;
      running = false;
      clearTimeout(pokeSoon);
      pokeSoon = undefined;
      await wakeLoop.stop();
      await stopListening?.();
      await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    },
    /** Looks for due deliveries now (after a clock change in tests; NOTIFY does it otherwise). */
    poke,
    /** Leases what is due now and waits until those sends are recorded; returns how many were sent. */
    async runOnce(): Promise<number> {
      const started = await fill();
      await Promise.allSettled([...inflight]);
      return started;
    },
    /** Sends until nothing is due now (retries scheduled later are left for later) and nothing is in flight. */
    async drain() {
      for (;;) {
        const started = await fill();
        if (started === 0 && inflight.size === 0) return;
        await Promise.allSettled([...inflight]);
      }
    },
    /** Sends in flight in this process. */
    get inflight() {
      return inflight.size;
    },
  };
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;
