import { channelRef, emitEvent, notifyIn, postEventPayload } from '../../core/events/events.js';
import type { Tx } from '../../db/client.js';
import { excerpt } from '../../core/activity.js';
import { runAsActor, SYSTEM_ACTOR } from '../../core/actor.js';
import { isDatabaseUnavailable } from '../../lib/database-unavailable.js';
import type { PublishOutcomeKind } from '../../core/metrics/metrics.js';
import { channelLabel, type IntegrationRow, type PostRow, type PublisherEnv } from './publisher-env.js';
import { nextPoll, type Decision } from './retry-policy.js';

/**
 * How a publish ends, each as one transaction: row state, notification, event and the next job
 * (retry, next thread item) commit together. `carryOut` turns the retry policy's decision into
 * one of them.
 */
export function createOutcomes(env: PublisherEnv) {
  const { posts, channels, queue } = env;

  /**
   * Metrics of outcomes are counted once their transaction committed: a transaction tried again
   * (the database away) or rolled back counts nothing. `count(tx, …)` holds the count until then;
   * outside `inTransaction` it counts at once.
   */
  const afterCommit = new WeakMap<Tx, (() => void)[]>();
  function count(tx: Tx, record: () => void) {
    const later = afterCommit.get(tx);
    if (later) later.push(record);
    else record();
  }
  async function inTransaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const later: (() => void)[] = [];
    const result = await posts.transaction((tx) => {
      afterCommit.set(tx, later);
      return fn(tx);
    });
    for (const record of later) record();
    return result;
  }

  /**
   * Runs `fn` in a transaction on the row, only while it is still the same attempt. What the
   * platform answered is known only to this process: if the database is away (restarting), the
   * recording is tried again (0.25 s, doubling to 5 s) for up to `attemptTimeoutMs` instead of
   * being dropped — else a post that was published would end "outcome unknown". Trying again is
   * safe: the row is locked and re-read each time, and once the outcome (or another worker's
   * reconciliation) committed, the attempt is no longer `sending` and nothing is done.
   */
  async function whileSending<T>(rowId: string, fn: (tx: Tx, row: PostRow) => Promise<T>): Promise<T | undefined> {
    // The waits add up to at most `attemptTimeoutMs` (counted, not read from a clock: an injected one may stand still).
    let waited = 0;
    for (let delayMs = 250; ; delayMs = Math.min(delayMs * 2, 5000)) {
      try {
        return await inTransaction(async (tx) => {
          const row = await posts.lockPost(tx, rowId);
          if (!row || row.attemptState === null) return undefined;
          return fn(tx, row);
        });
      } catch (e) {
        if (!isDatabaseUnavailable(e) || waited + delayMs > env.options.attemptTimeoutMs) throw e;
        waited += delayMs;
        env.logger.warn({ err: e, postId: rowId }, 'the database is unavailable; recording the publish outcome again shortly');
        await new Promise((r) => setTimeout(r, delayMs));
      }
    }
  }

  /** The platform label of metrics: the channel's identifier, `unknown` when the channel row is gone. */
  const platformOf = (row: PostRow, integration: IntegrationRow | undefined) => integration?.identifier ?? 'unknown';

  /**
   * Ends `row` (and the thread items after it) ERROR with `reason`, notifying and emitting.
   * `kind`: what the metrics count it as (a `PlatformError` kind, or one of the words of `PublishOutcomeKind`).
   */
  async function fail(tx: Tx, row: PostRow, integration: IntegrationRow | undefined, reason: string, kind: PublishOutcomeKind = 'unknown') {
    const at = env.now();
    count(tx, () => env.metrics.publishOutcome(platformOf(row, integration), 'error', kind));
    await posts.markFailed(tx, row.id, reason, at);
    await posts.failLaterItems(tx, row.parentPostId ?? row.id, row.position, `Not published: item ${row.position + 1} of this thread failed`, at);
    const what = row.position === 0 ? 'Your post' : `Item ${row.position + 1} of your thread`;
    const notify = { content: `${what} on ${channelLabel(env, integration)} failed: ${reason}`, link: null };
    await emitEvent(tx, row.organizationId, 'post.failed', { ...postEventPayload(row, integration), error: reason, failedAt: at.toISOString() }, at, { notify });
    await recordOutcome(tx, row, integration, 'post.failed', { error: reason, position: row.position });
  }

  /**
   * The activity log's entry of an outcome, as the system: the publish may run in the async context
   * of the request whose post woke the dispatcher, whose actor did not publish it.
   */
  function recordOutcome(tx: Tx, row: PostRow, integration: IntegrationRow | undefined, action: string, details: Record<string, unknown>) {
    const target = { organizationId: row.organizationId, action, targetKind: 'post', targetId: row.parentPostId ?? row.id, targetName: excerpt(row.content) };
    return runAsActor(SYSTEM_ACTOR, () => env.activity.record({ ...target, details: { channel: integration?.id ?? row.integrationId, ...details } }, tx));
  }

  /** `note`: the adapter's word on a partly successful publish (kept as the post's `error` text, else cleared). */
  async function published(tx: Tx, row: PostRow, integration: IntegrationRow | undefined, id: string, url: string, note?: string) {
    const at = env.now();
    const platform = platformOf(row, integration);
    count(tx, () => env.metrics.publishOutcome(platform, 'published', 'none'));
    // Lag against the time the person chose: the first item only (thread items follow their own delay).
    if (row.position === 0) count(tx, () => env.metrics.publishLag(platform, (at.getTime() - row.publishDate.getTime()) / 1000));
    const next = await posts.markPublished(tx, { id: row.id, rootId: row.parentPostId ?? row.id, position: row.position }, { id, url: url || null, note: note ?? null }, at);
    // An inbox upload (TikTok) has no id or URL yet: the user finishes it in the app, then
    // records the real one with `PUT /posts/{id}/release-id` (candidates: `GET /posts/{id}/missing`).
    const notify =
      row.position !== 0
        ? undefined
        : url
          ? { content: `Your post has been published on ${channelLabel(env, integration)} at ${url}`, link: url }
          : { content: `Your post was sent to ${channelLabel(env, integration)}; its id there is not known yet: see GET /posts/${row.id}/missing to record it`, link: null };
    const payload = { ...postEventPayload(row, integration), releaseId: id, releaseURL: url || null, publishedAt: at.toISOString() };
    await emitEvent(tx, row.organizationId, 'post.published', payload, at, { notify });
    // one entry per post (its first item), not per thread item
    if (row.position === 0) await recordOutcome(tx, row, integration, 'post.published', { url: url || null });
    // The next thread item follows `delay` minutes after this one.
    if (next && next.state === 'QUEUE') await queue.schedule(tx, next.id, new Date(at.getTime() + next.delay * 60_000));
  }

  /** The platform took the post and processes it asynchronously: `token` is checked from the next poll on. */
  async function awaitProcessing(tx: Tx, row: PostRow, token: string, pollAfterMs: number | undefined) {
    const at = env.now();
    await posts.markPending(tx, row.id, token, at);
    await queue.schedule(tx, row.id, nextPoll(at, env.now(), pollAfterMs, env.options));
  }

  /** A check found the platform still processing (`token`: the same or a new one; `progressAt`: its last progress). */
  async function stillProcessing(tx: Tx, row: PostRow, token: string, progressAt: Date, pollAfterMs: number | undefined) {
    await posts.updatePending(tx, row.id, token, progressAt, env.now());
    await queue.schedule(tx, row.id, nextPoll(progressAt, env.now(), pollAfterMs, env.options));
  }

  async function retryLater(tx: Tx, row: PostRow, at: Date, note: string | null) {
    await posts.clearAttempt(tx, row.id, note, env.now());
    await queue.schedule(tx, row.id, at);
  }

  /** The channel's access is gone: mark it, notify, emit, and fail the post asking to reconnect. */
  async function failForReconnect(tx: Tx, row: PostRow, integration: IntegrationRow, reason: string, kind: PublishOutcomeKind) {
    const at = env.now();
    if (await channels.markRefreshNeeded(integration.id, at, tx)) {
      await notifyIn(tx, row.organizationId, `Channel ${integration.name} (${integration.identifier}) must be reconnected: ${reason}`, null, at);
    }
    await emitEvent(tx, row.organizationId, 'integration.refresh_needed', { integration: channelRef(integration), reason }, at);
    return fail(tx, row, integration, `The channel must be reconnected: ${reason}`, kind);
  }

  /**
   * Carries out the retry policy's `decision` on `row`, in the transaction `tx`. `kind`: the failure
   * it answers, as the metrics count it (a `PlatformError` kind, `unknown`, `not_arrived`).
   */
  async function carryOut(tx: Tx, row: PostRow, integration: IntegrationRow, decision: Decision, kind: PublishOutcomeKind) {
    switch (decision.kind) {
      case 'retry':
        count(tx, () => env.metrics.publishOutcome(integration.identifier, 'retry', kind));
        if (decision.blockChannelUntil) await channels.blockPublishingUntil(integration.id, decision.blockChannelUntil, tx);
        return retryLater(tx, row, decision.at, decision.note);
      case 'final':
        if (decision.blockChannelUntil) await channels.blockPublishingUntil(integration.id, decision.blockChannelUntil, tx);
        return fail(tx, row, integration, decision.message, kind);
      case 'reconnect':
        return failForReconnect(tx, row, integration, decision.reason, kind);
      case 'reconcile':
        count(tx, () => env.metrics.publishOutcome(integration.identifier, 'reconcile', kind));
        if (decision.note !== undefined) await posts.setError(tx, row.id, decision.note, env.now());
        await queue.schedule(tx, row.id, decision.at);
        return;
    }
  }

  return { inTransaction, count, whileSending, fail, published, awaitProcessing, stillProcessing, carryOut };
}

export type Outcomes = ReturnType<typeof createOutcomes>;
