import type { components } from '../../api/schema.js';

/** A series rule as POST /series takes it (and GET /series answers it). */
export type SeriesRule = components['schemas']['SeriesRuleInput'];
export type Weekday = NonNullable<SeriesRule['weekdays']>[number];

/** Monday first, as the rule's RFC 5545 codes. */
export const WEEKDAYS: { code: Weekday; short: string; long: string }[] = [
  { code: 'MO', short: 'Mon', long: 'Monday' },
  { code: 'TU', short: 'Tue', long: 'Tuesday' },
  { code: 'WE', short: 'Wed', long: 'Wednesday' },
  { code: 'TH', short: 'Thu', long: 'Thursday' },
  { code: 'FR', short: 'Fri', long: 'Friday' },
  { code: 'SA', short: 'Sat', long: 'Saturday' },
  { code: 'SU', short: 'Sun', long: 'Sunday' },
];

/** What the composer's "Repeat" control holds (the date and time come from the composer's own fields). */
export interface RepeatChoice {
  frequency: 'none' | 'daily' | 'weekly' | 'monthly';
  /** every N days / weeks / months */
  interval: number;
  /** weekly: the chosen days (at least one) */
  weekdays: Weekday[];
  ends: 'never' | 'on' | 'after';
  /** ends on: the last local date (YYYY-MM-DD) */
  until: string;
  /** ends after: how many posts in all */
  count: number;
}

export const NO_REPEAT: RepeatChoice = { frequency: 'none', interval: 1, weekdays: [], ends: 'never', until: '', count: 10 };

/** The weekday code of a local date (YYYY-MM-DD). */
export function weekdayOf(date: string): Weekday {
  const day = new Date(`${date}T12:00:00Z`).getUTCDay();
  return WEEKDAYS[(day + 6) % 7]!.code;
}

/** The rule POST /series is sent for this choice, from the composer's local date and time in `timeZone`. */
export function buildRule(choice: RepeatChoice, start: { date: string; time: string }, timeZone: string): SeriesRule {
  if (choice.frequency === 'none') throw new Error('Not repeating');
  const rule: SeriesRule = { frequency: choice.frequency, interval: Math.max(1, Math.round(choice.interval) || 1), time: start.time, timeZone, startDate: start.date };
  if (choice.frequency === 'weekly') {
    const days = choice.weekdays.length > 0 ? choice.weekdays : [weekdayOf(start.date)];
    // in the week's order, whatever order they were ticked in
    rule.weekdays = WEEKDAYS.map((w) => w.code).filter((c) => days.includes(c));
  }
  if (choice.frequency === 'monthly') rule.monthDays = [Number(start.date.slice(8, 10))];
  if (choice.ends === 'on' && choice.until) rule.until = choice.until;
  if (choice.ends === 'after') rule.count = Math.max(1, Math.round(choice.count) || 1);
  return rule;
}

/** Problems the control can see before asking the API (keyed as the API's `rule.*` field paths). */
export function repeatProblems(choice: RepeatChoice, startDate: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (choice.frequency === 'none') return out;
  if (!Number.isInteger(choice.interval) || choice.interval < 1 || choice.interval > 365) out['rule.interval'] = 'Between 1 and 365';
  if (choice.ends === 'on') {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(choice.until)) out['rule.until'] = 'Choose the last date';
    else if (startDate && choice.until < startDate) out['rule.until'] = 'The last date is before the first post';
  }
  if (choice.ends === 'after' && (!Number.isInteger(choice.count) || choice.count < 1 || choice.count > 1000)) out['rule.count'] = 'Between 1 and 1000';
  return out;
}

function dayName(code: string): string {
  return WEEKDAYS.find((w) => w.code === code)?.short ?? code;
}

function list(words: string[]): string {
  return words.join(', ');
}

function ordinalDay(n: number): string {
  if (n === -1) return 'the last day';
  return `day ${n}`;
}

function formatLocalDate(date: string): string {
  // a local calendar date: formatted in UTC so no zone moves it
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${date}T12:00:00Z`));
}

/** "Every week on Mon, Wed at 09:00 Europe/Berlin, 10 times". */
export function describeRule(rule: Pick<SeriesRule, 'frequency' | 'interval' | 'weekdays' | 'monthDays' | 'time' | 'timeZone' | 'startDate' | 'until' | 'count'>): string {
  const n = rule.interval > 1 ? rule.interval : 1;
  let head: string;
  if (rule.frequency === 'daily') head = n === 1 ? 'Every day' : `Every ${n} days`;
  else if (rule.frequency === 'weekly') {
    const days = rule.weekdays && rule.weekdays.length > 0 ? rule.weekdays : [weekdayOf(rule.startDate)];
    head = `${n === 1 ? 'Every week' : `Every ${n} weeks`} on ${list(days.map(dayName))}`;
  } else {
    const days = rule.monthDays && rule.monthDays.length > 0 ? rule.monthDays : [Number(rule.startDate.slice(8, 10))];
    head = `${n === 1 ? 'Every month' : `Every ${n} months`} on ${list(days.map(ordinalDay))}`;
  }
  let out = `${head} at ${rule.time} ${rule.timeZone}`;
  if (rule.count) out += `, ${rule.count} time${rule.count === 1 ? '' : 's'}`;
  else if (rule.until) out += `, until ${formatLocalDate(rule.until)}`;
  return out;
}
