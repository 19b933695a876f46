import { PlatformError } from '../platform.js';

/** What one relay did with an event. */
export interface RelayOutcome {
  relay: string;
  /**
   * `accepted`: `OK true` (or `duplicate:`: the relay already has it); `refused`: `OK false`;
   * `unreachable`: no connection, nothing sent; `no_answer`: sent, but no `OK` came back in time
   * (or the connection dropped): the relay may have kept it.
   */
  status: 'accepted' | 'refused' | 'unreachable' | 'no_answer';
  message: string;
}

/** The machine-readable prefix of an `OK`/`CLOSED` message (NIP-01): `invalid`, `rate-limited`… */
export function prefixOf(message: string): string {
  const m = /^([a-z-]+):/.exec(message.trim());
  return m ? m[1]! : '';
}

/** Prefixes about who writes, not what: every relay saying so means the key (or the relay list) must change. */
const AUTHOR_PREFIXES = new Set(['restricted', 'auth-required']);

/** Seconds a `rate-limited:` message asks for ("try again in 30 seconds"), else a minute. */
export function retryAfterOf(message: string): number {
  const m = /(\d+)\s*(s|sec|secs|second|seconds|m|min|mins|minute|minutes)\b/i.exec(message);
  if (!m) return 60;
  const n = Number(m[1]);
  return /^m/i.test(m[2]!) ? n * 60 : Math.max(1, n);
}

const describe = (o: RelayOutcome) => `${o.relay}: ${o.message}`;

/**
 * The post's fate from every relay's answer: published when one relay accepted it (the others'
 * refusals become the note), otherwise the one `PlatformError` the answers add up to.
 */
export function classifyOutcomes(outcomes: RelayOutcome[]): { accepted: RelayOutcome[]; note?: string } {
  const accepted = outcomes.filter((o) => o.status === 'accepted');
  const others = outcomes.filter((o) => o.status !== 'accepted');
  if (accepted.length > 0) {
    return others.length === 0
      ? { accepted }
      : { accepted, note: `Published on ${accepted.length} of ${outcomes.length} relays; not on ${others.map(describe).join('; ')}` };
  }
  const all = outcomes.map(describe).join('; ');
  const noAnswer = outcomes.filter((o) => o.status === 'no_answer');
  if (noAnswer.length > 0) {
    // Sent, never confirmed: the relay may hold it. Re-sending blindly could post twice.
    throw new PlatformError('transient', `No relay confirmed the note (${all})`, { outcomeUnknown: true });
  }
  const refused = outcomes.filter((o) => o.status === 'refused');
  if (refused.length === 0) throw new PlatformError('transient', `No relay could be reached (${all})`);
  const prefixes = refused.map((o) => prefixOf(o.message));
  const content = prefixes.filter((p) => p !== 'rate-limited' && p !== 'error' && !AUTHOR_PREFIXES.has(p));
  if (content.length > 0) throw new PlatformError('rejected', `Every relay refused the note: ${all}`, { platformCode: content[0] || undefined });
  if (refused.length === outcomes.length && prefixes.every((p) => AUTHOR_PREFIXES.has(p))) {
    throw new PlatformError('reconnect_required', `Every relay refuses to take notes from this key: ${all}`, { platformCode: prefixes[0] });
  }
  const limited = refused.filter((o) => prefixOf(o.message) === 'rate-limited');
  if (limited.length > 0) {
    throw new PlatformError('rate_limited', `The relays asked to slow down: ${all}`, { retryAfterSeconds: Math.max(...limited.map((o) => retryAfterOf(o.message))) });
  }
  if (prefixes.some((p) => p === 'error') || refused.length < outcomes.length) throw new PlatformError('transient', `No relay took the note: ${all}`);
  throw new PlatformError('rejected', `Every relay refused the note: ${all}`);
}
