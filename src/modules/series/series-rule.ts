import { DateTime, IANAZone } from 'luxon';
import rrulePkg from 'rrule';
import type { SeriesRule } from './series.schemas.js';

// rrule ships CommonJS: its named exports are reached through the default import.
const { RRule } = rrulePkg;

const WEEKDAYS = { MO: 0, TU: 1, WE: 2, TH: 3, FR: 4, SA: 5, SU: 6 } as const;

export function isKnownZone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

/**
 * The rule as an RFC 5545 rule on "floating" wall-clock times: dtstart is a Date whose UTC fields
 * are the local date and time (no tzid), so rrule never does zone arithmetic; each occurrence's
 * fields are turned into an instant in the series' zone afterwards (`toInstant`). 09:00 stays
 * 09:00 local across a DST change by construction.
 */
function toRRule(rule: SeriesRule) {
  const [y, m, d] = rule.startDate.split('-').map(Number) as [number, number, number];
  const [hh, mm] = rule.time.split(':').map(Number) as [number, number];
  const until = rule.until ? rule.until.split('-').map(Number) : undefined;
  return new RRule({
    freq: rule.frequency === 'daily' ? RRule.DAILY : rule.frequency === 'weekly' ? RRule.WEEKLY : RRule.MONTHLY,
    interval: rule.interval,
    dtstart: new Date(Date.UTC(y, m - 1, d, hh, mm)),
    // until is a local date, inclusive: the end of that day
    until: until ? new Date(Date.UTC(until[0]!, until[1]! - 1, until[2], 23, 59, 59)) : null,
    count: rule.count ?? null,
    byweekday: rule.frequency === 'weekly' && rule.weekdays?.length ? rule.weekdays.map((w) => WEEKDAYS[w]) : null,
    bymonthday: rule.frequency === 'monthly' && rule.monthDays?.length ? rule.monthDays : null,
  });
}

/**
 * A floating occurrence as an instant in `zone`. A local time that does not exist (the hour skipped
 * in spring) is shifted forward by the gap, as luxon does (02:30 on the Berlin spring-forward day
 * is 03:30 CEST); a local time that exists twice (autumn) is the second, in standard time (02:30
 * CET on the Berlin fall-back day), as luxon picks.
 */
function toInstant(floating: Date, zone: string): Date {
  return DateTime.fromObject(
    { year: floating.getUTCFullYear(), month: floating.getUTCMonth() + 1, day: floating.getUTCDate(), hour: floating.getUTCHours(), minute: floating.getUTCMinutes() },
    { zone },
  ).toJSDate();
}

export interface Occurrence {
  index: number;
  at: Date;
}

/**
 * Occurrences from `fromIndex` on (and not before `from`), while they are at or before `through`; at least `atLeast` of
 * them when the rule has that many (the next one is always created, however far). Indexes count
 * from 0 at the rule's first occurrence, so they identify an occurrence for good.
 */
export function occurrencesOf(
  rule: SeriesRule,
  opts: { fromIndex: number; through: Date; atLeast?: number; max?: number; from?: Date },
): { occurrences: Occurrence[]; exhausted: boolean } {
  const out: Occurrence[] = [];
  const max = opts.max ?? 500;
  let exhausted = true;
  toRRule(rule).all((d, i) => {
    if (i < opts.fromIndex) return true;
    const at = toInstant(d, rule.timeZone);
    // before `from` (already past): passed over, neither returned nor counted
    if (opts.from && at.getTime() < opts.from.getTime()) return true;
    if ((at > opts.through && out.length >= (opts.atLeast ?? 0)) || out.length >= max) {
      exhausted = false;
      return false;
    }
    out.push({ index: i, at });
    return true;
  });
  return { occurrences: out, exhausted };
}

/** The first occurrence's instant, or undefined when the rule has none. */
export function firstOccurrence(rule: SeriesRule): Date | undefined {
  return occurrencesOf(rule, { fromIndex: 0, through: new Date(0), atLeast: 1 }).occurrences[0]?.at;
}
