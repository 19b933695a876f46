import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { integrations, posts } from '../../db/schema/index.js';
import type { Clock } from '../../lib/clock.js';
import { canFit, imageTargetOf, needsFitting, type ImageTarget } from '../../core/media/image-fit.js';
import type { FittedMedia, ImageFitter } from '../../core/media/image-fitter.js';
import { renditionFormatFor, renditionKey } from '../../core/media/renditions.js';
import type { MediaRepository } from '../../modules/media/media.repository.js';
import { emitEvent, notifyIn, postEventPayload } from '../../core/events/events.js';
import { htmlToText } from '../../platforms/common/html.js';
import { PlatformError, type MediaKindRule, type PlatformAdapter, type PublishItem, type PublishMedia, type PublishResult } from '../../platforms/platform.js';
import type { ChannelAccess } from '../../core/channels/channel-access.js';
import type { PublishJobData, PublishQueue } from './publish-queue.js';
import { decide, decideCheckFailure, decideLookupFailure, decideNotArrived, failureOf, nextPoll, OUTCOME_UNKNOWN, pendingGivenUp, type Decision } from './retry-policy.js';

export { OUTCOME_UNKNOWN } from './retry-policy.js';

type PostRow = typeof posts.$inferSelect;
type IntegrationRow = typeof integrations.$inferSelect;

export interface PublisherOptions {
  /** posts that come due more than this late (the service was down) end ERROR "missed" */
  maxLatenessMs: number;
  /** attempts before a transient failure becomes final */
  maxAttempts: number;
  /**
   * First retry of a transient failure, within `retryFirstMs`–2×`retryFirstMs`: a blip (one 502,
   * a reset connection) should cost the post seconds, not minutes.
   */
  retryFirstMs: number;
  /** the retry after that; doubles each further attempt, with jitter */
  retryBaseMs: number;
  retryMaxMs: number;
  /** one publish call (uploads included) */
  attemptTimeoutMs: number;
  /**
   * An asynchronous publish (`pending`) is first checked this long after it answered, then at
   * half the time it has been processing (backoff), at most every `pendingPollMaxMs`, and given
   * up after `pendingMaxMs`. An adapter that knows better says so (`pollAfterMs`).
   */
  pendingPollMs: number;
  pendingPollMaxMs: number;
  pendingMaxMs: number;
}

export const DEFAULT_PUBLISHER_OPTIONS: PublisherOptions = {
  maxLatenessMs: 24 * 3600_000,
  maxAttempts: 6,
  retryFirstMs: 1_000,
  retryBaseMs: 30_000,
  retryMaxMs: 30 * 60_000,
  attemptTimeoutMs: 5 * 60_000,
  pendingPollMs: 5_000,
  pendingPollMaxMs: 60_000,
  pendingMaxMs: 30 * 60_000,
};

export interface PublisherDeps {
  db: Db;
  queue: PublishQueue;
  access: ChannelAccess;
  clock: Clock;
  workerId: string;
  options: PublisherOptions;
  logger: { warn(obj: unknown, msg?: string): void; info(obj: unknown, msg?: string): void };
  /** re-encodes pictures that break the platform's limits */
  fitter: ImageFitter;
  /** the media rows posts name */
  media: Pick<MediaRepository, 'findByIds'>;
  /** the public URL the service serves a storage key at (`${PUBLIC_URL}/media/<key>`), for renditions */
  mediaUrl(storageKey: string): string;
  /** random in [0, 1); tests pin it */
  random?: () => number;
}

/**
 * Publishes one post row per job (the first item of a post, or one thread item), following
 * API.md §6. The rules that keep a post from being lost or sent twice:
 *
 * - The attempt is recorded (`attempt_state = 'sending'`) in its own commit before the platform
 *   request leaves; only the worker that set it sends. A row found `sending` by a later job (a
 *   crash, a timeout after sending, a recovered lease) is never sent again blindly: it is reconciled
 *   with the platform's recent posts where the adapter can list them, else it ends ERROR with
 *   {@link OUTCOME_UNKNOWN}.
 * - Every outcome (published, retry, failed) is one transaction: row state, notification, event and
 *   the next job (retry, next thread item) commit together.
 * - What a failure leads to (retry when, fail with which words, reconnect, look for the attempt) is
 *   decided by the pure policy in `retry-policy.ts`; this file only carries the decision out.
 */
export function createPublisher(deps: PublisherDeps) {
  const { db, queue, access, clock, options } = deps;
  const random = deps.random ?? (() => Math.random());
  const now = () => new Date(clock.now());

  /**
   * The post's media as the adapter gets them. A platform that pulls pictures from their URL
   * (`pulled`) and does not take a picture's stored type (`platformTypes`) is handed the URL of a
   * rendition in a type it takes (`media/renditions.ts`; the service renders it when first fetched).
   */
  async function loadMedia(row: PostRow, q: Tx | Db, imageRule: MediaKindRule | undefined) {
    const rows = await deps.media.findByIds(row.image.map((i) => i.id), q);
    const byId = new Map(rows.map((m) => [m.id, m]));
    return row.image.flatMap((img): PublishItem['media'] => {
      const m = byId.get(img.id);
      // Posts never carry audio (refused when the post is made).
      if (!m || m.type === 'audio') return [];
      const item: PublishMedia = { id: m.id, path: m.path, type: m.type, mimeType: m.mimeType, size: m.size, width: m.width, height: m.height, duration: m.duration, alt: img.alt ?? m.alt };
      const format = m.type === 'image' && imageRule?.pulled ? renditionFormatFor(m.mimeType, imageRule.platformTypes ?? imageRule.mimeTypes) : undefined;
      return [format ? { ...item, mimeType: format, path: deps.mediaUrl(renditionKey(m.storageKey, format)) } : item];
    });
  }

  async function context(tx: Tx | Db, row: PostRow) {
    const [integration] = await tx.select().from(integrations).where(eq(integrations.id, row.integrationId));
    const root = row.parentPostId ? (await tx.select().from(posts).where(eq(posts.id, row.parentPostId)))[0] : row;
    const [prev] = row.parentPostId
      ? await tx
          .select()
          .from(posts)
          .where(and(eq(posts.parentPostId, row.parentPostId), eq(posts.position, row.position - 1), isNull(posts.deletedAt)))
          .limit(1)
      : [];
    const previous = row.position === 1 ? root : prev;
    return { integration, root: root ?? row, previous };
  }

  function label(integration: IntegrationRow | undefined) {
    if (!integration) return 'the channel';
    const adapter = safeAdapter(integration);
    return `${adapter?.metadata.displayName ?? integration.identifier} (${integration.name})`;
  }

  function safeAdapter(integration: IntegrationRow): PlatformAdapter | undefined {
    try {
      return access.adapterOf(integration);
    } catch {
      return undefined;
    }
  }

  /** Ends `row` (and the thread items after it) ERROR with `reason`, notifying and emitting. */
  async function fail(tx: Tx, row: PostRow, integration: IntegrationRow | undefined, reason: string) {
    const at = now();
    await tx
      .update(posts)
      .set({ state: 'ERROR', error: reason, attemptState: null, pendingToken: null, pendingProgressAt: null, leaseOwner: null, dueAt: null, publishJobId: null, updatedAt: at })
      .where(eq(posts.id, row.id));
    const rootId = row.parentPostId ?? row.id;
    await tx
      .update(posts)
      .set({ state: 'ERROR', error: `Not published: item ${row.position + 1} of this thread failed`, updatedAt: at })
      .where(and(eq(posts.parentPostId, rootId), gt(posts.position, row.position), eq(posts.state, 'QUEUE'), isNull(posts.deletedAt)));
    const what = row.position === 0 ? 'Your post' : `Item ${row.position + 1} of your thread`;
    await notifyIn(tx, row.organizationId, `${what} on ${label(integration)} failed: ${reason}`, null, at);
    await emitEvent(tx, row.organizationId, 'post.failed', { ...postEventPayload(row, integration), error: reason, failedAt: at.toISOString() }, at);
  }

  /** `note`: the adapter's word on a partly successful publish (kept as the post's `error` text, else cleared). */
  async function published(tx: Tx, row: PostRow, integration: IntegrationRow | undefined, id: string, url: string, note?: string) {
    const at = now();
    await tx
      .update(posts)
      .set({ state: 'PUBLISHED', releaseId: id, releaseUrl: url || null, publishedAt: at, error: note ?? null, attemptState: null, pendingToken: null, pendingProgressAt: null, leaseOwner: null, dueAt: null, publishJobId: null, updatedAt: at })
      .where(eq(posts.id, row.id));
    if (row.position === 0) {
      // An inbox upload (TikTok) has no id or URL yet: the user finishes it in the app, then
      // records the real one with `PUT /posts/{id}/release-id` (candidates: `GET /posts/{id}/missing`).
      const content = url
        ? `Your post has been published on ${label(integration)} at ${url}`
        : `Your post was sent to ${label(integration)}; its id there is not known yet: see GET /posts/${row.id}/missing to record it`;
      await notifyIn(tx, row.organizationId, content, url || null, at);
    }
    await emitEvent(tx, row.organizationId, 'post.published', { ...postEventPayload(row, integration), releaseId: id, releaseURL: url || null, publishedAt: at.toISOString() }, at);
    // The next thread item follows `delay` minutes after this one.
    const rootId = row.parentPostId ?? row.id;
    const [next] = await tx
      .select()
      .from(posts)
      .where(and(eq(posts.parentPostId, rootId), gt(posts.position, row.position), isNull(posts.deletedAt)))
      .orderBy(asc(posts.position))
      .limit(1);
    if (next && next.state === 'QUEUE') await queue.schedule(tx, next.id, new Date(at.getTime() + next.delay * 60_000));
  }

  async function retryLater(tx: Tx, row: PostRow, at: Date, note: string | null) {
    await tx.update(posts).set({ attemptState: null, pendingToken: null, pendingProgressAt: null, error: note, updatedAt: now() }).where(eq(posts.id, row.id));
    await queue.schedule(tx, row.id, at);
  }

  /** Runs `fn` in a transaction on the row, only while it is still the same attempt. */
  async function whileSending<T>(rowId: string, fn: (tx: Tx, row: PostRow) => Promise<T>): Promise<T | undefined> {
    return db.transaction(async (tx) => {
      const [row] = await tx.select().from(posts).where(eq(posts.id, rowId)).for('update');
      if (!row || row.attemptState === null) return undefined;
      return fn(tx, row);
    });
  }

  /** The channel's access is gone: mark it, notify, emit, and fail the post asking to reconnect. */
  async function failForReconnect(tx: Tx, row: PostRow, integration: IntegrationRow, reason: string) {
    const at = now();
    const [marked] = await tx
      .update(integrations)
      .set({ refreshNeeded: true, updatedAt: at })
      .where(and(eq(integrations.id, integration.id), eq(integrations.refreshNeeded, false)))
      .returning({ id: integrations.id });
    if (marked) {
      await notifyIn(tx, row.organizationId, `Channel ${integration.name} (${integration.identifier}) must be reconnected: ${reason}`, null, at);
    }
    await emitEvent(tx, row.organizationId, 'integration.refresh_needed', { integration: { id: integration.id, identifier: integration.identifier, name: integration.name }, reason }, at);
    return fail(tx, row, integration, `The channel must be reconnected: ${reason}`);
  }

  /** Carries out the retry policy's `decision` on `row`, in the transaction `tx`. */
  async function carryOut(tx: Tx, row: PostRow, integration: IntegrationRow, decision: Decision) {
    switch (decision.kind) {
      case 'retry':
        if (decision.blockChannelUntil) await tx.update(integrations).set({ publishBlockedUntil: decision.blockChannelUntil }).where(eq(integrations.id, integration.id));
        return retryLater(tx, row, decision.at, decision.note);
      case 'final':
        if (decision.blockChannelUntil) await tx.update(integrations).set({ publishBlockedUntil: decision.blockChannelUntil }).where(eq(integrations.id, integration.id));
        return fail(tx, row, integration, decision.message);
      case 'reconnect':
        return failForReconnect(tx, row, integration, decision.reason);
      case 'reconcile':
        if (decision.note !== undefined) await tx.update(posts).set({ error: decision.note, updatedAt: now() }).where(eq(posts.id, row.id));
        await queue.schedule(tx, row.id, decision.at);
        return;
    }
  }

  async function onPlatformError(rowId: string, integration: IntegrationRow, e: unknown) {
    const failure = failureOf(e);
    if (failure.kind === 'unknown' || failure.outcomeUnknown) deps.logger.warn({ err: e, postId: rowId }, 'publish outcome unknown; reconciling');
    // Where the adapter can list recent posts, an interrupted attempt is looked for only once it has
    // had time to land (a client-side timeout: the request may still be under way at the platform).
    const canReconcile = safeAdapter(integration)?.findRecent !== undefined;
    await whileSending(rowId, (tx, row) => carryOut(tx, row, integration, decide(failure, row.attempts, now(), { options, random, channel: label(integration), canReconcile })));
  }

  async function onResult(rowId: string, integration: IntegrationRow, result: PublishResult) {
    await whileSending(rowId, async (tx, row) => {
      if (result.status === 'published') {
        await published(tx, row, integration, result.id, result.url, result.note);
        return;
      }
      const at = now();
      await tx.update(posts).set({ attemptState: 'pending', pendingToken: result.token, pendingProgressAt: at, updatedAt: at }).where(eq(posts.id, row.id));
      await queue.schedule(tx, row.id, nextPoll(at, now(), result.pollAfterMs, options));
    });
  }

  /** A row left `sending`: find out from the platform whether the post arrived. */
  async function reconcile(rowId: string) {
    const [row] = await db.select().from(posts).where(eq(posts.id, rowId));
    if (!row || row.attemptState !== 'sending') return;
    const { integration, root, previous } = await context(db, row);
    const adapter = integration && safeAdapter(integration);
    // A thread item is looked for among the replies to the item before it (comments are often not in the main listing).
    const replyTo = row.parentPostId && previous?.releaseId && root.releaseId ? { id: previous.releaseId, rootId: root.releaseId } : undefined;
    if (!integration || !adapter?.findRecent || integration.deletedAt || !integration.credentials || integration.refreshNeeded) {
      await whileSending(rowId, (tx, r) => fail(tx, r, integration, OUTCOME_UNKNOWN));
      return;
    }
    // From just before the attempt (a little clock skew between us and the platform allowed).
    const since = new Date((row.lastAttemptAt ?? row.updatedAt).getTime() - 2 * 60_000);
    let recent: Awaited<ReturnType<NonNullable<PlatformAdapter['findRecent']>>>;
    try {
      recent = await access.run(integration, (a, ctx) => a.findRecent!({ since, limit: 50, settings: root.settings, ...(replyTo ? { replyTo } : {}) }, ctx), AbortSignal.timeout(options.attemptTimeoutMs));
    } catch (e) {
      // The platform will not let us look (a permission the app lacks: `unsupported`), the grant is
      // gone, or an hour has passed: the outcome stays unknown; else look again later.
      const failure = failureOf(e);
      await whileSending(rowId, (tx, r) => carryOut(tx, r, integration, decideLookupFailure(failure, row.lastAttemptAt, now(), options)));
      return;
    }
    // A platform post already recorded on another row (the same text posted before) is not ours.
    const ids = recent.map((p) => p.id);
    const claimed = new Set(
      ids.length
        ? (
            await db
              .select({ id: posts.releaseId })
              .from(posts)
              .where(and(eq(posts.integrationId, row.integrationId), inArray(posts.releaseId, ids)))
          ).map((r) => r.id)
        : [],
    );
    const match = recent.find((p) => {
      const created = Date.parse(p.createdAt);
      return !claimed.has(p.id) && (Number.isNaN(created) || created >= since.getTime()) && sameContent(p.content, row.content);
    });
    await whileSending(rowId, async (tx, r) => {
      if (match) {
        deps.logger.info({ postId: r.id, releaseId: match.id }, 'reconciled: the interrupted attempt had published');
        await published(tx, r, integration, match.id, match.url);
      } else {
        // The platform shows no such post: the request did not create one, so sending is safe.
        await carryOut(tx, r, integration, decideNotArrived(r.attempts, now(), { options, channel: label(integration) }));
      }
    });
  }

  /** What a send needs, read under the row's lock before the attempt is recorded (see `begin`). */
  interface SendInput {
    integration: IntegrationRow;
    item: PublishItem;
    /** bytes of the pictures re-encoded for the platform, by media id (the others are opened as stored) */
    fittedBlobs: Map<string, Blob>;
    settings: Record<string, unknown>;
    replyTo: { id: string; rootId: string } | undefined;
    idempotencyKey: string;
  }

  /** Pictures re-encoded for one job (`handle`), or why one could not be. */
  type Fitted = Map<string, FittedMedia | Error>;

  /**
   * Reads what the send needs. Pictures beyond the platform's type, size or dimension limits go as
   * re-encoded in `fitted`; when one is not there yet, the answer is the list to fit first, which
   * `handle` does outside the transaction (an encode can take seconds, and embedded PostgreSQL has
   * one connection) before it begins again. Throws `PlatformError('rejected')` for a picture that
   * could not be re-encoded (unfittable ones were refused when the post was made).
   */
  async function sendInput(q: Tx | Db, row: PostRow, attempts: number, fitted: Fitted): Promise<SendInput | { toFit: PublishMedia[]; target: ImageTarget } | undefined> {
    const { integration, root, previous } = await context(q, row);
    if (!integration) return undefined;
    const rule = safeAdapter(integration)?.metadata.media.image;
    const target = rule && imageTargetOf(rule);
    const fittedBlobs = new Map<string, Blob>();
    const toFit: PublishMedia[] = [];
    const media = (await loadMedia(row, q, rule)).map((m) => {
      if (!target || m.type !== 'image' || !needsFitting(m, target) || !canFit(m, target)) return m;
      const f = fitted.get(m.id);
      if (f instanceof Error) throw new PlatformError('rejected', `The picture ${m.id} could not be re-encoded for ${label(integration)}: ${f.message}`);
      if (!f) toFit.push(m);
      else fittedBlobs.set(m.id, f.blob);
      return f?.media ?? m;
    });
    if (target && toFit.length > 0) return { toFit, target };
    const replyTo = previous?.releaseId && root.releaseId ? { id: previous.releaseId, rootId: root.releaseId } : undefined;
    return { integration, item: { content: row.content, media }, fittedBlobs, settings: root.settings, replyTo, idempotencyKey: `${row.id}:${attempts}` };
  }

  async function send(rowId: string, input: SendInput) {
    const { integration, item, fittedBlobs, settings, replyTo, idempotencyKey } = input;
    let result: PublishResult;
    try {
      result = await access.run(
        integration,
        (adapter, ctx) => {
          const openMedia: typeof ctx.openMedia = (m) => {
            const fitted = fittedBlobs.get(m.id);
            return fitted ? Promise.resolve(fitted) : ctx.openMedia(m);
          };
          return adapter.publish({ item, settings, replyTo, idempotencyKey }, { ...ctx, openMedia });
        },
        AbortSignal.timeout(options.attemptTimeoutMs),
      );
    } catch (e) {
      await onPlatformError(rowId, integration, e);
      return;
    }
    await onResult(rowId, integration, result);
  }

  async function check(rowId: string) {
    const [row] = await db.select().from(posts).where(eq(posts.id, rowId));
    if (!row?.pendingToken) return;
    const { integration } = await context(db, row);
    const adapter = integration && safeAdapter(integration);
    if (!integration || !adapter?.checkPublish) {
      await whileSending(rowId, (tx, r) => fail(tx, r, integration, OUTCOME_UNKNOWN));
      return;
    }
    const token = row.pendingToken;
    let result: PublishResult;
    try {
      result = await access.run(integration, (a, ctx) => a.checkPublish!(token, ctx), AbortSignal.timeout(options.attemptTimeoutMs));
    } catch (e) {
      // `checkPublish` is idempotent by contract (it looks before any step that must not happen
      // twice), so whatever else went wrong, the same token is simply checked again later.
      const decision = decideCheckFailure(failureOf(e), label(integration));
      if (decision.kind !== 'poll') {
        await whileSending(rowId, (tx, r) => carryOut(tx, r, integration, decision));
        return;
      }
      deps.logger.warn({ err: e, postId: rowId }, 'checking an asynchronous publish failed; checking again later');
      result = { status: 'pending', token, ...(decision.pollAfterMs !== undefined ? { pollAfterMs: decision.pollAfterMs } : {}) };
    }
    // A check that moved the work on (a new token: another chunk uploaded, a container made) is
    // progress; the publish is given up only after `pendingMaxMs` without any.
    const progressAt = result.status === 'pending' && result.token !== token ? now() : (row.pendingProgressAt ?? row.lastAttemptAt ?? now());
    const givenUp = result.status === 'pending' ? pendingGivenUp(progressAt, now(), label(integration), options) : undefined;
    if (givenUp !== undefined) {
      await whileSending(rowId, (tx, r) => fail(tx, r, integration, givenUp));
      return;
    }
    await whileSending(rowId, async (tx, r) => {
      if (result.status === 'published') {
        await published(tx, r, integration, result.id, result.url, result.note);
        return;
      }
      await tx.update(posts).set({ pendingToken: result.token, pendingProgressAt: progressAt, updatedAt: now() }).where(eq(posts.id, r.id));
      await queue.schedule(tx, r.id, nextPoll(progressAt, now(), result.pollAfterMs, options));
    });
  }

  type Step = 'send' | 'fit' | 'reconcile' | 'check' | 'none';

  /** What `begin` hands on to `handle`, and the pictures `handle` fitted for it. */
  interface Ready {
    send?: SendInput;
    toFit?: { toFit: PublishMedia[]; target: ImageTarget };
    fitted: Fitted;
    fitTried: boolean;
  }

  /**
   * The start of a job: checks, then records the attempt (its own commit, before anything is
   * sent), or answers 'fit' when pictures must be re-encoded first (nothing recorded).
   */
  async function begin(job: PublishJobData, ready: Ready): Promise<Step> {
    return db.transaction(async (tx): Promise<Step> => {
      const [row] = await tx.select().from(posts).where(eq(posts.id, job.postId)).for('update');
      if (!row || row.version !== job.version || row.deletedAt !== null || row.state !== 'QUEUE') return 'none';
      if (row.attemptState === 'sending') return 'reconcile';
      if (row.attemptState === 'pending') return 'check';
      const { integration, previous } = await context(tx, row);
      const at = now();
      if (!integration || integration.deletedAt) {
        await fail(tx, row, integration, 'The channel was disconnected');
        return 'none';
      }
      if (integration.disabled) {
        await fail(tx, row, integration, `The channel ${integration.name} is disabled`);
        return 'none';
      }
      if (integration.refreshNeeded || !integration.credentials) {
        await fail(tx, row, integration, `The channel ${integration.name} must be reconnected before it can publish`);
        return 'none';
      }
      if (row.dueAt && at.getTime() - row.dueAt.getTime() > options.maxLatenessMs) {
        await fail(
          tx,
          row,
          integration,
          `missed: it was due at ${row.dueAt.toISOString()} while the service was not running, more than ${Math.round(options.maxLatenessMs / 60_000)} minutes ago (PUBLISH_MAX_LATENESS); reschedule it to publish`,
        );
        return 'none';
      }
      if (row.position > 0 && (!previous || previous.state !== 'PUBLISHED' || !previous.releaseId)) {
        await fail(tx, row, integration, 'The item before it in the thread was not published');
        return 'none';
      }
      if (integration.publishBlockedUntil && integration.publishBlockedUntil > at) {
        await queue.schedule(tx, row.id, integration.publishBlockedUntil);
        return 'none';
      }
      // Everything the request needs is read now: once the attempt commits, the request leaves
      // at once (a crash in between ends "outcome unknown" where it cannot be reconciled).
      let input;
      try {
        input = await sendInput(tx, row, row.attempts + 1, ready.fitted);
      } catch (e) {
        if (!(e instanceof PlatformError)) throw e;
        await fail(tx, row, integration, e.message);
        return 'none';
      }
      if (input && 'toFit' in input) {
        // Pictures to re-encode first; if they were fitted already (the post's media changed in
        // between), a fresh job starts over rather than looping here.
        if (ready.fitTried) {
          await queue.schedule(tx, row.id, at);
          return 'none';
        }
        ready.toFit = input;
        return 'fit';
      }
      ready.send = input;
      await tx
        .update(posts)
        .set({ attemptState: 'sending', leaseOwner: deps.workerId, attempts: sql`${posts.attempts} + 1`, lastAttemptAt: at, updatedAt: at })
        .where(eq(posts.id, row.id));
      return 'send';
    });
  }

  return {
    /** Handles one publish job (the dispatcher looks for the next due job when it returns). */
    async handle(job: PublishJobData): Promise<void> {
      const ready: Ready = { fitted: new Map(), fitTried: false };
      let step = await begin(job, ready);
      if (step === 'fit' && ready.toFit) {
        const { toFit, target } = ready.toFit;
        await Promise.all(
          toFit.map((m) =>
            deps.fitter.fit(m, target).then(
              (f) => ready.fitted.set(m.id, f),
              (e: unknown) => ready.fitted.set(m.id, e instanceof Error ? e : new Error(String(e))),
            ),
          ),
        );
        ready.fitTried = true;
        step = await begin(job, ready);
      }
      if (step === 'send' && ready.send) await send(job.postId, ready.send);
      else if (step === 'reconcile') await reconcile(job.postId);
      else if (step === 'check') await check(job.postId);
    },
  };
}

export type Publisher = ReturnType<typeof createPublisher>;

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
