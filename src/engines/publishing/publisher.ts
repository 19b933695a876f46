import { NO_ACTIVITY, type ActivityRecorder } from '../../core/activity.js';
import type { ChannelAccess } from '../../core/channels/channel-access.js';
import type { ChannelsRepository } from '../../core/channels/channels.repository.js';
import type { PublishQueue } from '../../core/queues.js';
import type { Clock } from '../../lib/clock.js';
import { noMetrics, type Metrics } from '../../core/metrics/metrics.js';
import type { ImageFitter } from '../../core/media/image-fitter.js';
import { PlatformError } from '../../platforms/platform.js';
import { createPlatformCalls } from './publish-calls.js';
import { ShortLinkFailure, type LinkShortenerPort, type ShortenRequest } from '../../core/short-links.js';
import { fitPictures, readItemContext, readSendInput, type Fitted, type SendInput, type ToFit } from './publish-input.js';
import { createOutcomes } from './publish-outcomes.js';
import type { PublishJobData } from './publish-queue.js';
import type { IntegrationRow, PostRow, PublisherEnv, PublisherOptions } from './publisher-env.js';
import type { PublishingRepository } from './publishing.repository.js';

export { DEFAULT_PUBLISHER_OPTIONS, type PublisherOptions } from './publisher-env.js';
export { OUTCOME_UNKNOWN } from './retry-policy.js';

export interface PublisherDeps {
  /** the activity log port: each post's published / failed outcome, as the system (none: not recorded) */
  activity?: ActivityRecorder;
  posts: PublishingRepository;
  channels: Pick<ChannelsRepository, 'findChannel' | 'markRefreshNeeded' | 'blockPublishingUntil'>;
  queue: Pick<PublishQueue, 'schedule'>;
  access: ChannelAccess;
  clock: Clock;
  workerId: string;
  options: PublisherOptions;
  logger: { warn(obj: unknown, msg?: string): void; info(obj: unknown, msg?: string): void };
  /** re-encodes pictures that break the platform's limits */
  fitter: ImageFitter;
  /** the public URL the service serves a storage key at (`${PUBLIC_URL}/media/<key>`), for renditions */
  mediaUrl: (storageKey: string) => string;
  /** random in [0, 1); tests pin it */
  random?: () => number;
  /** outcomes by platform and failure kind, publish lag (none: not recorded) */
  metrics?: Metrics;
  /** short links of posts with `shortLink` (none: links are published as written) */
  links?: LinkShortenerPort;
}

/** What a job does after its claim (`fit`: re-encode pictures, then claim again). */
/** How long a post waits for a short-link provider that is down before it fails. */
const SHORTEN_PATIENCE_MS = 3600_000;

type Step = 'send' | 'fit' | 'shorten' | 'reconcile' | 'check' | 'none';

/** What `claim` hands on to the job, and the pictures the job fitted for it. */
interface Ready {
  send?: SendInput;
  toFit?: ToFit;
  fitted: Fitted;
  fitTried: boolean;
  toShorten?: ShortenRequest;
  shortenTried?: boolean;
}

/**
 * Publishes one post row per job (the first item of a post, or one thread item), following
 * API.md §6. A job `claim`s the row (checks, then the attempt recorded), re-encodes the pictures
 * the platform would refuse and claims again (`publish-input.ts`), then calls the platform — sends,
 * checks an asynchronous publish, or reconciles an interrupted attempt (`publish-calls.ts`) — and
 * records the outcome (`publish-outcomes.ts`). The rules that keep a post from being lost or sent twice:
 *
 * - The attempt is recorded (`attempt_state = 'sending'`) in its own commit before the platform
 *   request leaves; only the worker that set it sends. A row found `sending` by a later job (a
 *   crash, a timeout after sending, a recovered lease) is never sent again blindly: it is reconciled
 *   with the platform's recent posts where the adapter can list them, else it ends ERROR with
 *   {@link OUTCOME_UNKNOWN}.
 * - Every outcome (published, retry, failed) is one transaction: row state, notification, event and
 *   the next job (retry, next thread item) commit together.
 * - What a failure leads to (retry when, fail with which words, reconnect, look for the attempt) is
 *   decided by the pure policy in `retry-policy.ts`; the publisher only carries the decision out.
 */
export function createPublisher(deps: PublisherDeps) {
  const env: PublisherEnv = {
    posts: deps.posts,
    channels: deps.channels,
    queue: deps.queue,
    access: deps.access,
    fitter: deps.fitter,
    mediaUrl: deps.mediaUrl,
    workerId: deps.workerId,
    options: deps.options,
    logger: deps.logger,
    now: () => new Date(deps.clock.now()),
    random: deps.random ?? (() => Math.random()),
    metrics: deps.metrics ?? noMetrics,
    activity: deps.activity ?? NO_ACTIVITY,
    links: deps.links,
  };
  const outcomes = createOutcomes(env);
  const calls = createPlatformCalls(env, outcomes);

  /**
   * The start of a job, under the row's lock: checks, then records the attempt (its own commit,
   * before anything is sent), or answers 'fit' when pictures must be re-encoded first (nothing recorded).
   */
  async function claim(job: PublishJobData, ready: Ready): Promise<Step> {
    return outcomes.inTransaction(async (tx): Promise<Step> => {
      const locked = await env.posts.lockPostWithChannel(tx, job.postId);
      const row = locked?.row;
      if (!row || row.version !== job.version || row.deletedAt !== null || row.state !== 'QUEUE') return 'none';
      if (row.attemptState === 'sending') return 'reconcile';
      if (row.attemptState === 'pending') return 'check';
      const context = await readItemContext(env, row, tx, locked);
      const { integration, previous } = context;
      const at = env.now();
      const verdict = mayPublish(row, integration, previous, at, env.options);
      if ('fail' in verdict) {
        await outcomes.fail(tx, row, integration, verdict.fail, 'precheck');
        return 'none';
      }
      if ('waitUntil' in verdict) {
        await env.queue.schedule(tx, row.id, verdict.waitUntil);
        return 'none';
      }
      // Everything the request needs is read now: once the attempt commits, the request leaves
      // at once (a crash in between ends "outcome unknown" where it cannot be reconciled).
      let input;
      try {
        input = await readSendInput(env, tx, row, row.attempts + 1, ready.fitted, context);
      } catch (e) {
        if (!(e instanceof PlatformError)) throw e;
        await outcomes.fail(tx, row, integration, e.message, e.kind);
        return 'none';
      }
      if (input && 'toFit' in input) {
        // Pictures to re-encode first; if they were fitted already (the post's media changed in
        // between), a fresh job starts over rather than looping here.
        if (ready.fitTried) {
          await env.queue.schedule(tx, row.id, at);
          return 'none';
        }
        ready.toFit = input;
        return 'fit';
      }
      if (input && 'toShorten' in input) {
        // Links to shorten first (outside the transaction: a provider is an HTTP call); made
        // once already and still missing means the text changed in between: start over.
        if (ready.shortenTried) {
          await env.queue.schedule(tx, row.id, at);
          return 'none';
        }
        ready.toShorten = input.toShorten;
        return 'shorten';
      }
      ready.send = input;
      await env.posts.markSending(tx, row.id, env.workerId, at);
      return 'send';
    });
  }

  /**
   * The links could not be shortened. A provider that may answer later is asked again (after
   * what it said, else a minute) while the post is less than an hour late; otherwise the post
   * ends ERROR with the provider's words. Nothing was sent to the platform.
   */
  async function shortenFailed(job: PublishJobData, e: ShortLinkFailure) {
    await outcomes.inTransaction(async (tx) => {
      const locked = await env.posts.lockPostWithChannel(tx, job.postId);
      const row = locked?.row;
      if (!row || row.version !== job.version || row.deletedAt !== null || row.state !== 'QUEUE' || row.attemptState !== null) return;
      const at = env.now();
      const lateMs = row.dueAt ? at.getTime() - row.dueAt.getTime() : 0;
      if (e.retryable && lateMs < SHORTEN_PATIENCE_MS) {
        await env.queue.schedule(tx, row.id, new Date(at.getTime() + (e.retryAfterSeconds ?? 60) * 1000));
        return;
      }
      await outcomes.fail(tx, row, locked.integration, `Its links could not be shortened: ${e.message}`, 'rejected');
    });
  }

  return {
    /**
     * Handles one publish job (the dispatcher looks for the next due job when it returns).
     * `requestDone`: called once the platform answered, before the outcome is recorded (at most once; not at all when no request was made).
     */
    async handle(job: PublishJobData, requestDone?: () => void): Promise<void> {
      const ready: Ready = { fitted: new Map(), fitTried: false };
      let step = await claim(job, ready);
      if (step === 'fit' && ready.toFit) {
        await fitPictures(env, ready.toFit, ready.fitted);
        ready.fitTried = true;
        step = await claim(job, ready);
      }
      if (step === 'shorten' && ready.toShorten && env.links) {
        try {
          await env.links.shorten(ready.toShorten);
        } catch (e) {
          if (!(e instanceof ShortLinkFailure)) throw e;
          await shortenFailed(job, e);
          return;
        }
        ready.shortenTried = true;
        step = await claim(job, ready);
      }
      if (step === 'send' && ready.send) await calls.send(job.postId, ready.send, requestDone);
      else if (step === 'reconcile') await calls.reconcile(job.postId, requestDone);
      else if (step === 'check') await calls.check(job.postId, requestDone);
    },
  };
}

export type Publisher = ReturnType<typeof createPublisher>;

/**
 * Whether a claimed row may be sent now (pure): a reason to end it ERROR, a time to wait for (the
 * platform paused the channel), or go.
 */
function mayPublish(
  row: PostRow,
  integration: IntegrationRow | undefined,
  previous: PostRow | undefined,
  at: Date,
  options: Pick<PublisherOptions, 'maxLatenessMs'>,
): { fail: string } | { waitUntil: Date } | { go: IntegrationRow } {
  if (!integration || integration.deletedAt) return { fail: 'The channel was disconnected' };
  if (integration.disabled) return { fail: `The channel ${integration.name} is disabled` };
  if (integration.refreshNeeded || !integration.credentials) return { fail: `The channel ${integration.name} must be reconnected before it can publish` };
  if (row.dueAt && at.getTime() - row.dueAt.getTime() > options.maxLatenessMs) {
    return {
      fail: `missed: it was due at ${row.dueAt.toISOString()} while the service was not running, more than ${Math.round(options.maxLatenessMs / 60_000)} minutes ago (PUBLISH_MAX_LATENESS); reschedule it to publish`,
    };
  }
  if (row.position > 0 && (!previous || previous.state !== 'PUBLISHED' || !previous.releaseId)) return { fail: 'The item before it in the thread was not published' };
  if (integration.publishBlockedUntil && integration.publishBlockedUntil > at) return { waitUntil: integration.publishBlockedUntil };
  return { go: integration };
}
