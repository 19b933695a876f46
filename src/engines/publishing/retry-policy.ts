import { PlatformError, type PlatformErrorKind } from '../../platforms/platform.js';

/**
 * The publisher's retry policy as pure functions: given what failed (as data), the attempt number,
 * the time and the options, they answer what to do next. No clock, no database, no I/O: the
 * publisher reads the row, asks here, and carries the answer out (SQL, notification, event, job).
 * `random` is injected so the jitter can be pinned in tests.
 */

export const OUTCOME_UNKNOWN =
  'outcome unknown — check before re-posting: the attempt was interrupted after the request was sent, and the platform cannot be asked whether it arrived';

/** The options of `PublisherOptions` the policy reads. */
export interface RetryOptions {
  /** attempts before a transient failure becomes final */
  maxAttempts: number;
  /** first retry of a transient failure, within `retryFirstMs`–2×`retryFirstMs` */
  retryFirstMs: number;
  /** the retry after that; doubles each further attempt, with jitter */
  retryBaseMs: number;
  retryMaxMs: number;
}

/** The options of `PublisherOptions` the pending-poll schedule reads. */
export interface PollOptions {
  pendingPollMs: number;
  pendingPollMaxMs: number;
  pendingMaxMs: number;
}

/**
 * A failure as data. `kind` is the `PlatformError` kind, or `unknown` for anything else thrown (a
 * programming error, a socket reset the adapter did not map): such a failure may have reached the
 * platform, so it is treated like `outcomeUnknown`.
 */
export interface Failure {
  kind: PlatformErrorKind | 'unknown';
  message: string;
  retryAfterSeconds?: number;
  /** the request may have reached the platform: never blindly re-send */
  outcomeUnknown?: boolean;
}

/** What the policy needs besides the failure, the attempt and the time. */
export interface PolicyContext {
  options: RetryOptions;
  /** random in [0, 1) */
  random: () => number;
  /** the channel as messages name it: "Telegram (Down News)" */
  channel: string;
  /** whether the channel's adapter can list its recent posts (`findRecent`), so an interrupted attempt can be looked for */
  canReconcile: boolean;
}

export type Decision =
  /** send again at `at`; `note` is kept as the post's `error` meanwhile */
  | { kind: 'retry'; at: Date; note: string; blockChannelUntil?: Date }
  /** the post ends ERROR with `message` */
  | { kind: 'final'; message: string; blockChannelUntil?: Date }
  /** the channel's access is gone: mark it for reconnecting and end the post ERROR, asking to reconnect with `reason` */
  | { kind: 'reconnect'; reason: string }
  /** the attempt may have arrived: look for it on the platform at `at` (never re-send blindly); `note`, when given, is kept as the post's `error` meanwhile */
  | { kind: 'reconcile'; at: Date; note?: string };

/** "1 attempt", "3 attempts" (the words a failed post's message ends with). */
export function attemptsText(n: number): string {
  return n === 1 ? '1 attempt' : `${n} attempts`;
}

/** Channel access already words its reasons "The channel must be reconnected: …". */
export function reconnectReason(message: string): string {
  return message.replace(/^The channel must be reconnected: /, '');
}

/**
 * The wait before retrying after failed attempt number `attempt`: quick once (most failures are
 * blips), then exponential from `retryBaseMs` with jitter (half to all of it, so posts that failed
 * together do not retry together), capped at `retryMaxMs`; never sooner than the platform asked.
 */
export function backoffMs(attempt: number, retryAfterSeconds: number | undefined, options: RetryOptions, random: () => number): number {
  const wait =
    attempt <= 1
      ? options.retryFirstMs * (1 + random())
      : Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** (attempt - 2)) * (0.5 + random() / 2);
  return Math.round(Math.max(wait, (retryAfterSeconds ?? 0) * 1000));
}

/**
 * What to do after attempt number `attempt` (already counted) of sending a post failed with `failure`.
 *
 * - `unknown` or `outcomeUnknown`: the post may have arrived. Where the adapter can list recent
 *   posts, look once the request has had time to land (`retryBaseMs`); else it ends {@link OUTCOME_UNKNOWN}.
 * - `transient`: retry with {@link backoffMs} until `maxAttempts`, then final.
 * - `rate_limited`: the channel is blocked until the platform's `Retry-After` (60 s when it gave
 *   none, at least 1 s) and the post retried then, plus a jitter of up to a tenth of the wait (at
 *   most 5 s) so that the channels one platform slowed down together do not all come back at the
 *   same instant; `maxAttempts + 4` attempts before it is final (a slow-down is not the post's
 *   fault, so it gets a few more).
 * - `auth_expired`, `reconnect_required`: reconnect. `rejected`, `unsupported`: final at once.
 */
export function decide(failure: Failure, attempt: number, now: Date, ctx: PolicyContext): Decision {
  const { options, channel } = ctx;
  if (failure.kind === 'unknown' || failure.outcomeUnknown) {
    if (!ctx.canReconcile) return { kind: 'final', message: OUTCOME_UNKNOWN };
    const at = new Date(now.getTime() + options.retryBaseMs);
    return { kind: 'reconcile', at, note: `Attempt ${attempt} was interrupted (${failure.message}); checking with ${channel} at ${at.toISOString()} whether it arrived` };
  }
  switch (failure.kind) {
    case 'transient': {
      if (attempt < options.maxAttempts) {
        const at = new Date(now.getTime() + backoffMs(attempt, failure.retryAfterSeconds, options, ctx.random));
        return { kind: 'retry', at, note: `Attempt ${attempt} failed (${failure.message}); retrying at ${at.toISOString()}` };
      }
      return { kind: 'final', message: `${channel} could not be reached after ${attemptsText(attempt)}: ${failure.message}` };
    }
    case 'rate_limited': {
      const waitMs = Math.max(1, failure.retryAfterSeconds ?? 60) * 1000;
      const blocked = new Date(now.getTime() + waitMs);
      if (attempt < options.maxAttempts + 4) {
        const at = new Date(blocked.getTime() + Math.floor(ctx.random() * Math.min(5000, waitMs / 10)));
        return { kind: 'retry', at, note: `${channel} asked to slow down; retrying at ${at.toISOString()}`, blockChannelUntil: blocked };
      }
      return { kind: 'final', message: `${channel} kept refusing with "slow down": ${failure.message}`, blockChannelUntil: blocked };
    }
    case 'auth_expired':
    case 'reconnect_required':
      return { kind: 'reconnect', reason: reconnectReason(failure.message) };
    case 'rejected':
      return { kind: 'final', message: `${channel} refused the post: ${failure.message}` };
    case 'unsupported':
      return { kind: 'final', message: failure.message };
  }
}

/**
 * An interrupted attempt number `attempt` was looked for on the platform and is not there: the
 * request did not create a post, so sending again now is safe, until `maxAttempts`.
 */
export function decideNotArrived(attempt: number, now: Date, ctx: Pick<PolicyContext, 'options' | 'channel'>): Extract<Decision, { kind: 'retry' | 'final' }> {
  if (attempt < ctx.options.maxAttempts) {
    return { kind: 'retry', at: now, note: `Attempt ${attempt} was interrupted and did not reach ${ctx.channel}; sending again` };
  }
  return { kind: 'final', message: `${ctx.channel} could not be reached after ${attemptsText(attempt)}` };
}

/** How long after an interrupted attempt its outcome is still looked for before it ends {@link OUTCOME_UNKNOWN}. */
export const RECONCILE_GIVE_UP_MS = 60 * 60_000;

/**
 * Looking for an interrupted attempt (`findRecent`) failed with `failure`. The platform will not
 * let us look (`unsupported`), the grant is gone (`reconnect_required`), the request is refused
 * (`rejected`) or an hour has passed since the attempt: the outcome stays unknown. Otherwise look
 * again after `retryBaseMs` (the post's note is left as it is).
 */
export function decideLookupFailure(failure: Failure, lastAttemptAt: Date | null, now: Date, options: Pick<RetryOptions, 'retryBaseMs'>): Extract<Decision, { kind: 'final' | 'reconcile' }> {
  if (failure.kind === 'unsupported') return { kind: 'final', message: `${OUTCOME_UNKNOWN} (${failure.message})` };
  const giveUpAt = (lastAttemptAt?.getTime() ?? 0) + RECONCILE_GIVE_UP_MS;
  if (now.getTime() > giveUpAt || failure.kind === 'reconnect_required' || failure.kind === 'rejected') {
    return { kind: 'final', message: OUTCOME_UNKNOWN };
  }
  return { kind: 'reconcile', at: new Date(now.getTime() + options.retryBaseMs) };
}

/**
 * Checking an asynchronous publish (`checkPublish`) failed with `failure`. A refusal is final and a
 * lost grant asks to reconnect; anything else checks the same token again later (`checkPublish` is
 * idempotent by contract), after the platform's `Retry-After` when it gave one.
 */
export function decideCheckFailure(failure: Failure, channel: string): Extract<Decision, { kind: 'final' | 'reconnect' }> | { kind: 'poll'; pollAfterMs?: number } {
  if (failure.kind === 'rejected' || failure.kind === 'unsupported') return { kind: 'final', message: `${channel} refused the post: ${failure.message}` };
  if (failure.kind === 'reconnect_required' || failure.kind === 'auth_expired') return { kind: 'reconnect', reason: reconnectReason(failure.message) };
  return failure.retryAfterSeconds !== undefined ? { kind: 'poll', pollAfterMs: failure.retryAfterSeconds * 1000 } : { kind: 'poll' };
}

/**
 * When to check a pending publish next: as the adapter asks (`pollAfterMs`), else at half the time
 * it has been processing since it last moved on (`since`), within `pendingPollMs`–`pendingPollMaxMs`.
 */
export function nextPoll(since: Date, now: Date, pollAfterMs: number | undefined, options: Pick<PollOptions, 'pendingPollMs' | 'pendingPollMaxMs'>): Date {
  const processingMs = now.getTime() - since.getTime();
  const wait = pollAfterMs ?? Math.min(options.pendingPollMaxMs, Math.max(options.pendingPollMs, processingMs / 2));
  return new Date(now.getTime() + Math.max(0, wait));
}

/** A pending publish with no progress since `progressAt` for longer than `pendingMaxMs` is given up, with this message; else undefined. */
export function pendingGivenUp(progressAt: Date, now: Date, channel: string, options: Pick<PollOptions, 'pendingMaxMs'>): string | undefined {
  if (now.getTime() - progressAt.getTime() <= options.pendingMaxMs) return undefined;
  return `${channel} was still processing the post, with no progress for ${Math.round(options.pendingMaxMs / 60_000)} minutes`;
}

/** A thrown value as a {@link Failure}: a `PlatformError`'s kind and details, or `unknown`. */
export function failureOf(e: unknown): Failure {
  if (e instanceof PlatformError) {
    return {
      kind: e.kind,
      message: e.message,
      ...(e.details.retryAfterSeconds !== undefined ? { retryAfterSeconds: e.details.retryAfterSeconds } : {}),
      ...(e.details.outcomeUnknown ? { outcomeUnknown: true } : {}),
    };
  }
  return { kind: 'unknown', message: e instanceof Error ? e.message : String(e) };
}
