import { DateTime } from 'luxon';
import type { Integration } from '../../api/queries.js';
import type { paths } from '../../api/schema.js';

/** What POST /imports answers: a dry run (200), the posts created (201), a background import (202). */
type ImportResponses = paths['/imports']['post']['responses'];
export type DryRun = ImportResponses[200]['content']['application/json'];
export type DryRunRow = DryRun['rows'][number];
export type ImportProblem = DryRun['problems'][number];
export type ImportDone = ImportResponses[201]['content']['application/json'];
export type ImportJob = ImportResponses[202]['content']['application/json'];

/** The file types the page takes (the input's `accept`). */
export const ACCEPT = '.csv,.json,.ndjson,.jsonl,text/csv,application/json,application/x-ndjson';

/** The content type a file is sent with: its extension first (browsers often give CSV no type), then its own type. */
export function contentTypeOf(file: { name: string; type: string }): 'text/csv' | 'application/json' | 'application/x-ndjson' {
  const name = file.name.toLowerCase();
  if (/\.(ndjson|jsonl)$/.test(name)) return 'application/x-ndjson';
  if (name.endsWith('.json')) return 'application/json';
  if (name.endsWith('.csv')) return 'text/csv';
  const type = file.type.toLowerCase();
  if (type.includes('ndjson')) return 'application/x-ndjson';
  if (type.includes('json')) return 'application/json';
  return 'text/csv';
}

/** The documented columns, as the page describes them (src/modules/imports/README.md). */
export const COLUMNS: { name: string; required?: boolean; about: string }[] = [
  { name: 'channel', required: true, about: "the channel's name (as on the Channels page), its id, or its account id on the platform" },
  { name: 'date', required: true, about: 'ISO 8601 with an offset (2031-01-05T09:00:00+01:00), or a local date and time with timezone' },
  { name: 'timezone', about: 'an IANA zone (Europe/Berlin) for a date without an offset' },
  { name: 'text', about: 'the post; required unless the row has media' },
  { name: 'media', about: 'image or video URLs, separated by spaces or |' },
  { name: 'type', about: 'schedule (default) or draft' },
  { name: 'group', about: 'rows with the same group are one post on several channels (one date and type)' },
  { name: 'position', about: 'thread items: 0 is the post, 1, 2… its replies (rows of one group and channel)' },
  { name: 'delay', about: 'minutes after the previous thread item' },
  { name: 'tags', about: 'tag names separated by |' },
  { name: 'settings', about: "a JSON object of the platform's settings (absent: the channel's defaults)" },
];

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * An example file to start from: the person's first channels (by name, or by id when two share a
 * name), dates the next days at 09:00 in their zone, a post on two channels and a short thread.
 */
export function exampleCsv(channels: Pick<Integration, 'id' | 'name' | 'disabled'>[], timeZone: string, now: Date = new Date()): string {
  const usable = channels.filter((c) => !c.disabled);
  const names = new Map<string, number>();
  for (const c of usable) names.set(c.name.toLowerCase(), (names.get(c.name.toLowerCase()) ?? 0) + 1);
  const ref = (c: { id: string; name: string }) => ((names.get(c.name.toLowerCase()) ?? 0) > 1 ? c.id : c.name);
  const first = usable[0] ? ref(usable[0]) : 'My channel';
  const second = usable[1] ? ref(usable[1]) : undefined;
  const day = (n: number) => DateTime.fromJSDate(now).setZone(timeZone).plus({ days: n }).toFormat("yyyy-MM-dd'T'09:00");
  const header = ['channel', 'date', 'timezone', 'text', 'media', 'type', 'group', 'position', 'delay', 'tags'];
  const rows: string[][] = [
    [first, day(1), timeZone, 'Our spring collection is out today!', '', 'schedule', 'launch', '0', '', 'launch'],
    ...(second ? [[second, day(1), timeZone, 'Our spring collection is out today!', '', 'schedule', 'launch', '0', '', 'launch']] : []),
    [first, day(2), timeZone, 'Three things we learned this week, a thread:', '', 'schedule', 'thread', '0', '', ''],
    [first, day(2), timeZone, '1. Ship small, ship often.', '', 'schedule', 'thread', '1', '5', ''],
    [first, day(3), timeZone, 'An idea to polish later, kept as a draft', '', 'draft', '', '0', '', ''],
  ];
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** The table's view of a dry run: each row with its problems, the problems of the whole file, counts. */
export interface CheckedFile {
  rows: { row: DryRunRow; problems: ImportProblem[] }[];
  /** problems not tied to a row of the table (the whole file, or a row the table does not have) */
  fileProblems: ImportProblem[];
  rowsWithProblems: number;
  /** posts the import creates: one per group and channel (thread items are part of their post) */
  posts: number;
  groups: number;
  /** the earliest publish date (UTC), for the calendar link */
  firstDate: string | null;
}

export function checkFile(dry: DryRun): CheckedFile {
  const byRow = new Map<number, ImportProblem[]>();
  for (const p of dry.problems) {
    if (p.row === null) continue;
    byRow.set(p.row, [...(byRow.get(p.row) ?? []), p]);
  }
  const known = new Set(dry.rows.map((r) => r.row));
  const fileProblems = dry.problems.filter((p) => p.row === null || !known.has(p.row));
  const rows = dry.rows.map((row) => ({ row, problems: byRow.get(row.row) ?? [] }));
  const posts = new Set(dry.rows.map((r) => `${r.group}\u0000${r.channel?.id ?? `row-${r.row}`}`));
  const groups = new Set(dry.rows.map((r) => r.group));
  const dates = dry.rows.map((r) => r.date).filter((d): d is string => d !== null);
  const firstDate = dates.length ? dates.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b)) : null;
  const rowsWithProblems = rows.filter((r) => r.problems.length > 0).length + new Set(fileProblems.filter((p) => p.row !== null).map((p) => p.row)).size;
  return { rows, fileProblems, rowsWithProblems, posts: posts.size, groups: groups.size, firstDate };
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** The export window of two dates (YYYY-MM-DD) in a zone: from the first day's start to the last day's end, as UTC instants. */
export function exportWindow(from: string, to: string, timeZone: string): { startDate: string; endDate: string } {
  return {
    startDate: DateTime.fromISO(from, { zone: timeZone }).startOf('day').toUTC().toISO()!,
    endDate: DateTime.fromISO(to, { zone: timeZone }).endOf('day').toUTC().toISO()!,
  };
}

export function dayIn(timeZone: string, plusDays = 0, now: Date = new Date()): string {
  return DateTime.fromJSDate(now).setZone(timeZone).plus({ days: plusDays }).toISODate()!;
}
