import { describe, expect, it } from 'vitest';
import { PlatformError } from '../../platforms/platform.js';
import {
  backoffMs,
  decide,
  decideCheckFailure,
  decideLookupFailure,
  decideNotArrived,
  failureOf,
  nextPoll,
  OUTCOME_UNKNOWN,
  pendingGivenUp,
  type Decision,
  type Failure,
  type PolicyContext,
  type RetryOptions,
} from './retry-policy.js';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const CHANNEL = 'Telegram (Down News)';
/** Exponential from 30 s: 30 s, 60 s, 120 s → capped at 100 s from the fourth attempt on. */
const OPTIONS: RetryOptions = { maxAttempts: 6, retryFirstMs: 1_000, retryBaseMs: 30_000, retryMaxMs: 100_000 };
/** the largest value `Math.random` can answer */
const ALMOST_1 = 1 - Number.EPSILON / 2;

const later = (ms: number) => new Date(NOW.getTime() + ms);
const iso = (ms: number) => later(ms).toISOString();

function ctx(over: Partial<Omit<PolicyContext, 'options'>> & { options?: Partial<RetryOptions> } = {}) {
  const calls = { random: 0 };
  const r = over.random ?? (() => 0);
  const context: PolicyContext = {
    channel: CHANNEL,
    canReconcile: true,
    ...over,
    options: { ...OPTIONS, ...over.options },
    random: () => {
      calls.random++;
      return r();
    },
  };
  return { context, calls };
}

const transient = (retryAfterSeconds?: number): Failure => ({ kind: 'transient', message: 'Bad Gateway', ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
const rateLimited = (retryAfterSeconds?: number): Failure => ({ kind: 'rate_limited', message: 'Too Many Requests', ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });

describe('decide: a failed send', () => {
  // Every failure kind × the attempt boundaries (first, second, last before max, at max = 6).
  // rate_limited gets maxAttempts + 4 (10) attempts; an outcome that may have arrived is never
  // retried blindly, whatever the attempt.
  const kinds: [Failure, Decision['kind'][]][] = [
    [transient(), ['retry', 'retry', 'retry', 'final']],
    [rateLimited(), ['retry', 'retry', 'retry', 'retry']],
    [{ kind: 'auth_expired', message: 'token expired' }, ['reconnect', 'reconnect', 'reconnect', 'reconnect']],
    [{ kind: 'reconnect_required', message: 'grant revoked' }, ['reconnect', 'reconnect', 'reconnect', 'reconnect']],
    [{ kind: 'rejected', message: 'text too long' }, ['final', 'final', 'final', 'final']],
    [{ kind: 'unsupported', message: 'no videos here' }, ['final', 'final', 'final', 'final']],
    [{ kind: 'unknown', message: 'socket hang up' }, ['reconcile', 'reconcile', 'reconcile', 'reconcile']],
    [{ kind: 'transient', message: 'timeout after sending', outcomeUnknown: true }, ['reconcile', 'reconcile', 'reconcile', 'reconcile']],
  ];
  const attempts = [1, 2, 5, 6];
  const matrix = kinds.flatMap(([failure, expected]) => attempts.map((attempt, i) => ({ kind: failure.kind, unknown: failure.outcomeUnknown === true, failure, attempt, expected: expected[i]! })));

  it.each(matrix)('$kind (outcomeUnknown: $unknown) after attempt $attempt → $expected', ({ failure, attempt, expected }) => {
    const { context, calls } = ctx();
    const decision = decide(failure, attempt, NOW, context);
    expect(decision.kind).toBe(expected);
    // Only a retry draws jitter (one draw, transient or rate_limited): a pinned `random` sequence stays in step.
    expect(calls.random).toBe(decision.kind === 'retry' ? 1 : 0);
  });

  it.each([
    // first retry: retryFirstMs–2×retryFirstMs
    { name: 'first attempt, random 0', attempt: 1, random: 0, retryAfter: undefined, waitMs: 1_000 },
    { name: 'first attempt, random ≈1', attempt: 1, random: ALMOST_1, retryAfter: undefined, waitMs: 2_000 },
    // then retryBaseMs × 2^(attempt−2), half to all of it
    { name: 'second attempt, random 0', attempt: 2, random: 0, retryAfter: undefined, waitMs: 15_000 },
    { name: 'second attempt, random ≈1', attempt: 2, random: ALMOST_1, retryAfter: undefined, waitMs: 30_000 },
    { name: 'third attempt, random 0', attempt: 3, random: 0, retryAfter: undefined, waitMs: 30_000 },
    { name: 'third attempt, random ½', attempt: 3, random: 0.5, retryAfter: undefined, waitMs: 45_000 },
    // capped at retryMaxMs (100 s) before the jitter
    { name: 'fourth attempt, capped, random 0', attempt: 4, random: 0, retryAfter: undefined, waitMs: 50_000 },
    { name: 'fourth attempt, capped, random ≈1', attempt: 4, random: ALMOST_1, retryAfter: undefined, waitMs: 100_000 },
    { name: 'last before max, capped, random ≈1', attempt: 5, random: ALMOST_1, retryAfter: undefined, waitMs: 100_000 },
    // Retry-After: never sooner than the platform asked, never later than the backoff because of it
    { name: 'Retry-After shorter than the backoff', attempt: 2, random: 0, retryAfter: 5, waitMs: 15_000 },
    { name: 'Retry-After longer than the backoff', attempt: 2, random: 0, retryAfter: 120, waitMs: 120_000 },
    { name: 'Retry-After longer than the cap', attempt: 5, random: ALMOST_1, retryAfter: 600, waitMs: 600_000 },
    { name: 'Retry-After on the first attempt', attempt: 1, random: 0, retryAfter: 3, waitMs: 3_000 },
  ])('transient: $name → retry after $waitMs ms', ({ attempt, random, retryAfter, waitMs }) => {
    const { context } = ctx({ random: () => random });
    expect(decide(transient(retryAfter), attempt, NOW, context)).toEqual({
      kind: 'retry',
      at: later(waitMs),
      note: `Attempt ${attempt} failed (Bad Gateway); retrying at ${iso(waitMs)}`,
    });
    expect(backoffMs(attempt, retryAfter, OPTIONS, () => random)).toBe(waitMs);
  });

  it.each([
    { maxAttempts: 1, attempt: 1, message: `${CHANNEL} could not be reached after 1 attempt: Bad Gateway` },
    { maxAttempts: 2, attempt: 2, message: `${CHANNEL} could not be reached after 2 attempts: Bad Gateway` },
    { maxAttempts: 6, attempt: 6, message: `${CHANNEL} could not be reached after 6 attempts: Bad Gateway` },
    { maxAttempts: 2, attempt: 3, message: `${CHANNEL} could not be reached after 3 attempts: Bad Gateway` },
  ])('transient at maxAttempts $maxAttempts after attempt $attempt → "$message"', ({ maxAttempts, attempt, message }) => {
    expect(decide(transient(), attempt, NOW, ctx({ options: { maxAttempts } }).context)).toEqual({ kind: 'final', message });
  });

  it.each([
    { name: 'no Retry-After: a minute', attempt: 1, retryAfter: undefined, waitMs: 60_000, kind: 'retry' },
    { name: 'Retry-After 0: at least a second', attempt: 1, retryAfter: 0, waitMs: 1_000, kind: 'retry' },
    { name: 'Retry-After 5 s', attempt: 2, retryAfter: 5, waitMs: 5_000, kind: 'retry' },
    { name: 'Retry-After 2 h (no cap)', attempt: 2, retryAfter: 7200, waitMs: 7_200_000, kind: 'retry' },
    { name: 'at maxAttempts: still retried', attempt: 6, retryAfter: 30, waitMs: 30_000, kind: 'retry' },
    { name: 'last before maxAttempts + 4', attempt: 9, retryAfter: 30, waitMs: 30_000, kind: 'retry' },
    { name: 'at maxAttempts + 4: final', attempt: 10, retryAfter: 30, waitMs: 30_000, kind: 'final' },
  ])('rate_limited: $name', ({ attempt, retryAfter, waitMs, kind }) => {
    const decision = decide(rateLimited(retryAfter), attempt, NOW, ctx().context);
    expect(decision).toEqual(
      kind === 'retry'
        ? { kind: 'retry', at: later(waitMs), note: `${CHANNEL} asked to slow down; retrying at ${iso(waitMs)}`, blockChannelUntil: later(waitMs) }
        : { kind: 'final', message: `${CHANNEL} kept refusing with "slow down": Too Many Requests`, blockChannelUntil: later(waitMs) },
    );
  });

  it.each([
    { name: 'a tenth of a 30 s wait', retryAfter: 30, random: 0.5, jitterMs: 1_500 },
    { name: 'at most 5 s', retryAfter: 7200, random: ALMOST_1, jitterMs: 4_999 },
    { name: 'a second: up to 100 ms', retryAfter: 1, random: ALMOST_1, jitterMs: 99 },
  ])('rate_limited retry jitter: $name', ({ retryAfter, random, jitterMs }) => {
    const decision = decide(rateLimited(retryAfter), 1, NOW, ctx({ random: () => random }).context);
    expect(decision).toMatchObject({ kind: 'retry', at: later(retryAfter * 1000 + jitterMs), blockChannelUntil: later(retryAfter * 1000) });
  });

  it.each([
    { kind: 'auth_expired' as const, message: 'The channel must be reconnected: the token expired', reason: 'the token expired' },
    { kind: 'reconnect_required' as const, message: 'The channel must be reconnected: access revoked', reason: 'access revoked' },
    { kind: 'reconnect_required' as const, message: 'Bad credentials', reason: 'Bad credentials' },
  ])('$kind "$message" → reconnect, reason "$reason"', ({ kind, message, reason }) => {
    expect(decide({ kind, message }, 1, NOW, ctx().context)).toEqual({ kind: 'reconnect', reason });
  });

  it.each([
    { kind: 'rejected' as const, attempt: 1, message: `${CHANNEL} refused the post: text too long` },
    { kind: 'rejected' as const, attempt: 6, message: `${CHANNEL} refused the post: text too long` },
    { kind: 'unsupported' as const, attempt: 1, message: 'text too long' },
  ])('$kind after attempt $attempt → final "$message"', ({ kind, attempt, message }) => {
    expect(decide({ kind, message: 'text too long' }, attempt, NOW, ctx().context)).toEqual({ kind: 'final', message });
  });

  it.each([
    { name: 'a thrown non-PlatformError, can look', failure: { kind: 'unknown', message: 'socket hang up' }, canReconcile: true, attempt: 1 },
    { name: 'outcomeUnknown, can look', failure: { kind: 'transient', message: 'timed out', outcomeUnknown: true }, canReconcile: true, attempt: 6 },
    { name: 'a thrown non-PlatformError, cannot look', failure: { kind: 'unknown', message: 'socket hang up' }, canReconcile: false, attempt: 1 },
    { name: 'outcomeUnknown rate_limited, cannot look', failure: { kind: 'rate_limited', message: 'reset', outcomeUnknown: true }, canReconcile: false, attempt: 2 },
  ] satisfies { name: string; failure: Failure; canReconcile: boolean; attempt: number }[])('$name → reconcile after retryBaseMs, or final "outcome unknown"', ({ failure, canReconcile, attempt }) => {
    const decision = decide(failure, attempt, NOW, ctx({ canReconcile }).context);
    expect(decision).toEqual(
      canReconcile
        ? { kind: 'reconcile', at: later(30_000), note: `Attempt ${attempt} was interrupted (${failure.message}); checking with ${CHANNEL} at ${iso(30_000)} whether it arrived` }
        : { kind: 'final', message: OUTCOME_UNKNOWN },
    );
  });
});

describe('decideNotArrived: an interrupted attempt the platform shows no trace of', () => {
  it.each([
    { attempt: 1, maxAttempts: 6, expected: { kind: 'retry', at: NOW, note: `Attempt 1 was interrupted and did not reach ${CHANNEL}; sending again` } },
    { attempt: 5, maxAttempts: 6, expected: { kind: 'retry', at: NOW, note: `Attempt 5 was interrupted and did not reach ${CHANNEL}; sending again` } },
    { attempt: 6, maxAttempts: 6, expected: { kind: 'final', message: `${CHANNEL} could not be reached after 6 attempts` } },
    { attempt: 1, maxAttempts: 1, expected: { kind: 'final', message: `${CHANNEL} could not be reached after 1 attempt` } },
  ])('attempt $attempt of $maxAttempts → $expected.kind', ({ attempt, maxAttempts, expected }) => {
    expect(decideNotArrived(attempt, NOW, { channel: CHANNEL, options: { ...OPTIONS, maxAttempts } })).toEqual(expected);
  });
});

describe('decideLookupFailure: looking for an interrupted attempt failed', () => {
  const recent = new Date(NOW.getTime() - 10 * 60_000);
  const old = new Date(NOW.getTime() - 61 * 60_000);
  const again = { kind: 'reconcile', at: later(30_000) };
  it.each([
    { kind: 'unsupported', lastAttemptAt: recent, expected: { kind: 'final', message: `${OUTCOME_UNKNOWN} (no permission)` } },
    { kind: 'unsupported', lastAttemptAt: old, expected: { kind: 'final', message: `${OUTCOME_UNKNOWN} (no permission)` } },
    { kind: 'reconnect_required', lastAttemptAt: recent, expected: { kind: 'final', message: OUTCOME_UNKNOWN } },
    { kind: 'rejected', lastAttemptAt: recent, expected: { kind: 'final', message: OUTCOME_UNKNOWN } },
    { kind: 'auth_expired', lastAttemptAt: recent, expected: again },
    { kind: 'transient', lastAttemptAt: recent, expected: again },
    { kind: 'rate_limited', lastAttemptAt: recent, expected: again },
    { kind: 'unknown', lastAttemptAt: recent, expected: again },
    { kind: 'transient', lastAttemptAt: new Date(NOW.getTime() - 60 * 60_000), expected: again },
    { kind: 'transient', lastAttemptAt: old, expected: { kind: 'final', message: OUTCOME_UNKNOWN } },
    { kind: 'transient', lastAttemptAt: null, expected: { kind: 'final', message: OUTCOME_UNKNOWN } },
  ] as { kind: Failure['kind']; lastAttemptAt: Date | null; expected: Decision }[])('$kind, last attempt $lastAttemptAt → $expected.kind', ({ kind, lastAttemptAt, expected }) => {
    expect(decideLookupFailure({ kind, message: 'no permission' }, lastAttemptAt, NOW, OPTIONS)).toEqual(expected);
  });
});

describe('decideCheckFailure: checking an asynchronous publish failed', () => {
  it.each([
    { failure: { kind: 'rejected', message: 'video too long' }, expected: { kind: 'final', message: `${CHANNEL} refused the post: video too long` } },
    { failure: { kind: 'unsupported', message: 'video too long' }, expected: { kind: 'final', message: `${CHANNEL} refused the post: video too long` } },
    { failure: { kind: 'auth_expired', message: 'The channel must be reconnected: expired' }, expected: { kind: 'reconnect', reason: 'expired' } },
    { failure: { kind: 'reconnect_required', message: 'revoked' }, expected: { kind: 'reconnect', reason: 'revoked' } },
    { failure: { kind: 'transient', message: 'Bad Gateway' }, expected: { kind: 'poll' } },
    { failure: { kind: 'rate_limited', message: 'slow down', retryAfterSeconds: 42 }, expected: { kind: 'poll', pollAfterMs: 42_000 } },
    { failure: { kind: 'unknown', message: 'socket hang up' }, expected: { kind: 'poll' } },
  ] as { failure: Failure; expected: ReturnType<typeof decideCheckFailure> }[])('$failure.kind → $expected.kind', ({ failure, expected }) => {
    expect(decideCheckFailure(failure, CHANNEL)).toEqual(expected);
  });
});

describe('the pending poll', () => {
  const poll = { pendingPollMs: 5_000, pendingPollMaxMs: 60_000, pendingMaxMs: 30 * 60_000 };
  it.each([
    { name: 'just answered: pendingPollMs', processingMs: 0, pollAfterMs: undefined, waitMs: 5_000 },
    { name: 'half the processing time', processingMs: 40_000, pollAfterMs: undefined, waitMs: 20_000 },
    { name: 'capped at pendingPollMaxMs', processingMs: 10 * 60_000, pollAfterMs: undefined, waitMs: 60_000 },
    { name: 'as the adapter asks', processingMs: 10 * 60_000, pollAfterMs: 2_000, waitMs: 2_000 },
    { name: 'a negative ask is now', processingMs: 0, pollAfterMs: -5, waitMs: 0 },
  ])('$name → $waitMs ms', ({ processingMs, pollAfterMs, waitMs }) => {
    expect(nextPoll(new Date(NOW.getTime() - processingMs), NOW, pollAfterMs, poll)).toEqual(later(waitMs));
  });

  it.each([
    { sinceMs: 30 * 60_000, expected: undefined },
    { sinceMs: 30 * 60_000 + 1, expected: `${CHANNEL} was still processing the post, with no progress for 30 minutes` },
  ])('no progress for $sinceMs ms → $expected', ({ sinceMs, expected }) => {
    expect(pendingGivenUp(new Date(NOW.getTime() - sinceMs), NOW, CHANNEL, poll)).toBe(expected);
  });
});

describe('failureOf', () => {
  it.each([
    { thrown: new PlatformError('rate_limited', 'slow down', { retryAfterSeconds: 7, status: 429 }), expected: { kind: 'rate_limited', message: 'slow down', retryAfterSeconds: 7 } },
    { thrown: new PlatformError('transient', 'reset', { outcomeUnknown: true }), expected: { kind: 'transient', message: 'reset', outcomeUnknown: true } },
    { thrown: new PlatformError('rejected', 'no'), expected: { kind: 'rejected', message: 'no' } },
    { thrown: new TypeError('x is undefined'), expected: { kind: 'unknown', message: 'x is undefined' } },
    { thrown: 'a string', expected: { kind: 'unknown', message: 'a string' } },
  ])('$thrown → $expected.kind', ({ thrown, expected }) => {
    expect(failureOf(thrown)).toEqual(expected);
  });
});
