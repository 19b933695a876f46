import { htmlToText } from '../../platforms/common/html.js';
import type { PlatformAdapter, PublishResult } from '../../platforms/platform.js';
import { readItemContext, type SendInput } from './publish-input.js';
import type { Outcomes } from './publish-outcomes.js';
import { adapterOrNone, channelLabel, type IntegrationRow, type PublisherEnv } from './publisher-env.js';
import { decide, decideCheckFailure, decideLookupFailure, decideNotArrived, failureOf, OUTCOME_UNKNOWN, pendingGivenUp } from './retry-policy.js';

/**
 * The three calls a job makes to the platform, each outside any transaction (a request can take
 * minutes): `send` the attempt recorded by the claim, `check` an asynchronous publish, and
 * `reconcile` an attempt found `sending` (did the post arrive?). What each answer leads to is
 * recorded through `outcomes`, only while the row is still the same attempt. `requestDone` is
 * called as soon as the platform answered (or failed), before the outcome is recorded: the
 * dispatcher's per-platform slot is held only for the request.
 */
export function createPlatformCalls(env: PublisherEnv, outcomes: Outcomes) {
  const { access, options } = env;
  const { whileSending, fail, published, carryOut } = outcomes;
  const timeout = () => AbortSignal.timeout(options.attemptTimeoutMs);

  async function onPlatformError(rowId: string, integration: IntegrationRow, e: unknown) {
    const failure = failureOf(e);
    if (failure.kind === 'unknown' || failure.outcomeUnknown) env.logger.warn({ err: e, postId: rowId }, 'publish outcome unknown; reconciling');
    // Where the adapter can list recent posts, an interrupted attempt is looked for only once it has
    // had time to land (a client-side timeout: the request may still be under way at the platform).
    const canReconcile = adapterOrNone(env, integration)?.findRecent !== undefined;
    await whileSending(rowId, (tx, row) =>
      carryOut(tx, row, integration, decide(failure, row.attempts, env.now(), { options, random: env.random, channel: channelLabel(env, integration), canReconcile }), failure.kind),
    );
  }

  async function onResult(rowId: string, integration: IntegrationRow, result: PublishResult) {
    await whileSending(rowId, async (tx, row) => {
      if (result.status === 'published') await published(tx, row, integration, result.id, result.url, result.note);
      else {
        outcomes.count(tx, () => env.metrics.publishOutcome(integration.identifier, 'pending', 'none'));
        await outcomes.awaitProcessing(tx, row, result.token, result.pollAfterMs);
      }
    });
  }

  /** Sends the attempt: pictures re-encoded for the platform are opened from memory, the others as stored. */
  async function send(rowId: string, input: SendInput, requestDone: () => void = noop) {
    const { integration, item, fittedBlobs, settings, replyTo, idempotencyKey } = input;
    let result: PublishResult;
    try {
      result = await access
        .run(
          integration,
          (adapter, ctx) => {
            const openMedia: typeof ctx.openMedia = (m) => {
              const fitted = fittedBlobs.get(m.id);
              return fitted ? Promise.resolve(fitted) : ctx.openMedia(m);
            };
            return adapter.publish({ item, settings, replyTo, idempotencyKey }, { ...ctx, openMedia });
          },
          timeout(),
        )
        .finally(requestDone);
    } catch (e) {
      await onPlatformError(rowId, integration, e);
      return;
    }
    await onResult(rowId, integration, result);
  }

  /** A row left `sending`: find out from the platform whether the post arrived. */
  async function reconcile(rowId: string, requestDone: () => void = noop) {
    const row = await env.posts.findPost(rowId);
    if (!row || row.attemptState !== 'sending') return;
    const { integration, root, previous } = await readItemContext(env, row);
    const adapter = integration && adapterOrNone(env, integration);
    // A thread item is looked for among the replies to the item before it (comments are often not in the main listing).
    const replyTo = row.parentPostId && previous?.releaseId && root.releaseId ? { id: previous.releaseId, rootId: root.releaseId } : undefined;
    if (!integration || !adapter?.findRecent || integration.deletedAt || !integration.credentials || integration.refreshNeeded) {
      await whileSending(rowId, (tx, r) => fail(tx, r, integration, OUTCOME_UNKNOWN, 'outcome_unknown'));
      return;
    }
    // From just before the attempt (a little clock skew between us and the platform allowed).
    const since = new Date((row.lastAttemptAt ?? row.updatedAt).getTime() - 2 * 60_000);
    let recent: Awaited<ReturnType<NonNullable<PlatformAdapter['findRecent']>>>;
    try {
      recent = await access.run(integration, (a, ctx) => a.findRecent!({ since, limit: 50, settings: root.settings, ...(replyTo ? { replyTo } : {}) }, ctx), timeout()).finally(requestDone);
    } catch (e) {
      // The platform will not let us look (a permission the app lacks: `unsupported`), the grant is
      // gone, or an hour has passed: the outcome stays unknown; else look again later.
      const failure = failureOf(e);
      await whileSending(rowId, (tx, r) => carryOut(tx, r, integration, decideLookupFailure(failure, row.lastAttemptAt, env.now(), options), failure.kind));
      return;
    }
    // A platform post already recorded on another row (the same text posted before) is not ours.
    const claimed = new Set(await env.posts.findClaimedReleaseIds(row.integrationId, recent.map((p) => p.id)));
    const match = recent.find((p) => {
      const created = Date.parse(p.createdAt);
      return !claimed.has(p.id) && (Number.isNaN(created) || created >= since.getTime()) && sameContent(p.content, row.content);
    });
    await whileSending(rowId, async (tx, r) => {
      if (match) {
        env.logger.info({ postId: r.id, releaseId: match.id }, 'reconciled: the interrupted attempt had published');
        await published(tx, r, integration, match.id, match.url);
      } else {
        // The platform shows no such post: the request did not create one, so sending is safe.
        await carryOut(tx, r, integration, decideNotArrived(r.attempts, env.now(), { options, channel: channelLabel(env, integration) }), 'not_arrived');
      }
    });
  }

  /** Checks an asynchronous publish (`pending`) with its token. */
  async function check(rowId: string, requestDone: () => void = noop) {
    const row = await env.posts.findPost(rowId);
    if (!row?.pendingToken) return;
    const { integration } = await readItemContext(env, row);
    const adapter = integration && adapterOrNone(env, integration);
    if (!integration || !adapter?.checkPublish) {
      await whileSending(rowId, (tx, r) => fail(tx, r, integration, OUTCOME_UNKNOWN, 'outcome_unknown'));
      return;
    }
    const token = row.pendingToken;
    let result: PublishResult;
    try {
      result = await access.run(integration, (a, ctx) => a.checkPublish!(token, ctx), timeout()).finally(requestDone);
    } catch (e) {
      // `checkPublish` is idempotent by contract (it looks before any step that must not happen
      // twice), so whatever else went wrong, the same token is simply checked again later.
      const failure = failureOf(e);
      const decision = decideCheckFailure(failure, channelLabel(env, integration));
      if (decision.kind !== 'poll') {
        await whileSending(rowId, (tx, r) => carryOut(tx, r, integration, decision, failure.kind));
        return;
      }
      env.logger.warn({ err: e, postId: rowId }, 'checking an asynchronous publish failed; checking again later');
      result = { status: 'pending', token, ...(decision.pollAfterMs !== undefined ? { pollAfterMs: decision.pollAfterMs } : {}) };
    }
    // A check that moved the work on (a new token: another chunk uploaded, a container made) is
    // progress; the publish is given up only after `pendingMaxMs` without any.
    const progressAt = result.status === 'pending' && result.token !== token ? env.now() : (row.pendingProgressAt ?? row.lastAttemptAt ?? env.now());
    const givenUp = result.status === 'pending' ? pendingGivenUp(progressAt, env.now(), channelLabel(env, integration), options) : undefined;
    if (givenUp !== undefined) {
      await whileSending(rowId, (tx, r) => fail(tx, r, integration, givenUp, 'pending_timeout'));
      return;
    }
    await whileSending(rowId, async (tx, r) => {
      if (result.status === 'published') await published(tx, r, integration, result.id, result.url, result.note);
      else {
        outcomes.count(tx, () => env.metrics.publishOutcome(integration.identifier, 'pending', 'none'));
        await outcomes.stillProcessing(tx, r, result.token, progressAt, result.pollAfterMs);
      }
    });
  }

  return { send, reconcile, check };
}

function noop() {}

/** Whether a platform post's text is the text we sent (platforms rewrite links and markup). */
export function sameContent(theirs: string, ours: string): boolean {
  const norm = (s: string) =>
    htmlToText(s)
      .replace(/https?:\/\/\S+/g, '')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()
      .toLowerCase();
  const a = norm(theirs);
  const b = norm(ours);
  // Short texts must match exactly ("Launch day" is not "Launch day is postponed"); long ones on
  // their first 80 characters (platforms append or rewrite the tail: links, hashtags, ellipses).
  if (a.length < 80 || b.length < 80) return a === b;
  return a.slice(0, 80) === b.slice(0, 80);
}
