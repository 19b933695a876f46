import type { EventInput } from '@fullcalendar/core';
import { DateTime } from 'luxon';
import type { Integration, Post, PostState } from '../../api/queries.js';
import { platformName } from '../../lib/platforms.js';
import { utcTitle } from '../../lib/time.js';
import { STATE_LABEL } from '../../components/ui.js';
import { approvalOf, STATUS_LABEL } from '../approvals/types.js';

/**
 * The calendar's pure logic: what a post looks like as a FullCalendar event, which posts the
 * filters keep, how the filters and the visible period live in the URL, and which period the
 * calendar shows first (so its posts are asked for before FullCalendar has laid the view out).
 */

/**
 * A post as GET /posts answers it through the typed client (which leaves out `intervalInDays`,
 * typed as only `null` in the schema, so the shared `Post` type is one property wider).
 */
export type CalendarPost = Omit<Post, 'intervalInDays'>;

export const STATES = ['QUEUE', 'DRAFT', 'PUBLISHED', 'ERROR'] as const satisfies readonly PostState[];

/** The views offered, by their URL name. */
export const VIEWS = { week: 'timeGridWeek', month: 'dayGridMonth', day: 'timeGridDay', list: 'listWeek' } as const;
export type ViewName = keyof typeof VIEWS;
export type FcViewType = (typeof VIEWS)[ViewName];

export function viewNameOf(type: string): ViewName | undefined {
  return (Object.keys(VIEWS) as ViewName[]).find((k) => VIEWS[k] === type);
}

export interface CalendarFilters {
  /** channel ids; empty = every channel */
  channels: string[];
  /** client group id; undefined = every group */
  group?: string;
  /** states shown; empty = every state */
  states: PostState[];
  /** review mode (issue 31): only posts waiting for approval or sent back for changes */
  review?: boolean;
}

/** Whether a post waits for an approver or for its author's changes (the review mode's posts). */
export function inReview(post: Pick<CalendarPost, 'approval'> | undefined): boolean {
  const status = approvalOf(post)?.status;
  return status === 'pending_approval' || status === 'changes_requested';
}

export interface CalendarPlace {
  view?: ViewName;
  /** YYYY-MM-DD in the display zone */
  date?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Filters and place read from the URL (unknown values are dropped, so a stale link still opens). */
export function readSearch(params: URLSearchParams): CalendarFilters & CalendarPlace {
  const channels = [...new Set(params.getAll('channel').filter((c) => c.length > 0 && c.length <= 100))];
  const states = STATES.filter((s) => params.getAll('state').some((v) => v.toUpperCase() === s));
  const group = params.get('group') || undefined;
  const view = params.get('view');
  const date = params.get('date');
  return {
    channels,
    states: states.length === STATES.length ? [] : states,
    ...(group ? { group } : {}),
    ...(params.get('review') === '1' ? { review: true } : {}),
    ...(view && view in VIEWS ? { view: view as ViewName } : {}),
    ...(date && DAY.test(date) && DateTime.fromISO(date).isValid ? { date } : {}),
  };
}

/** The URL's search params with these filters (other params kept). */
export function writeFilters(params: URLSearchParams, filters: CalendarFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete('channel');
  next.delete('state');
  next.delete('group');
  next.delete('review');
  if (filters.review) next.set('review', '1');
  for (const c of filters.channels) next.append('channel', c);
  if (filters.states.length > 0 && filters.states.length < STATES.length) for (const s of STATES.filter((x) => filters.states.includes(x))) next.append('state', s.toLowerCase());
  if (filters.group) next.set('group', filters.group);
  return next;
}

/** The URL's search params with the visible view and date (other params kept). */
export function writePlace(params: URLSearchParams, place: Required<CalendarPlace>): URLSearchParams {
  const next = new URLSearchParams(params);
  next.set('view', place.view);
  next.set('date', place.date);
  return next;
}

/**
 * Posts the filters keep. The client group is asked of the API (`customer`); it is checked here
 * too against the channel's group, so a post never shows under a group it is not in.
 */
export function applyFilters<P extends CalendarPost>(posts: readonly P[], filters: CalendarFilters, integrations: readonly Integration[] = []): P[] {
  const groupOf = new Map(integrations.map((i) => [i.id, i.customer?.id]));
  return posts.filter(
    (p) =>
      (filters.channels.length === 0 || filters.channels.includes(p.integration.id)) &&
      (filters.states.length === 0 || filters.states.includes(p.state)) &&
      (!filters.review || inReview(p)) &&
      (!filters.group || !groupOf.has(p.integration.id) || groupOf.get(p.integration.id) === filters.group),
  );
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Post content (plain text or the editor's HTML) as plain text, one line per paragraph. */
export function plainText(content: string): string {
  return decodeEntities(
    content
      .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/(p|div|li|h[1-6]|blockquote|pre|tr)\s*>/gi, '\n')
      .replace(/<[^>]*>/g, ''),
  )
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\u00a0]+/g, ' ');
}

/** The first non-empty line of a post's content, shortened for a calendar cell. */
export function firstLine(content: string, max = 120): string {
  const line =
    plainText(content)
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? '';
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** Only queued posts and drafts move; published and failed posts stay where they are. */
export function isMovable(state: PostState): boolean {
  return state === 'QUEUE' || state === 'DRAFT';
}

/** A channel of an event: its post there and how it is named. */
export interface EventChannel {
  post: CalendarPost;
  name: string;
  platform: string;
  /** "Acme News (Telegram): Queued": the avatar's accessible name and hover title */
  label: string;
}

/** What an event stands for when several of its channels are in different states. */
export type EventState = PostState | 'MIXED';

export interface GroupEventProps {
  /** the posts' shared `group` (one request for several channels) */
  group: string;
  /** the post opened by a click: the first channel's */
  post: CalendarPost;
  /** the channels shown in this event (the filters' choice among the group's) */
  channels: EventChannel[];
  /** every loaded post of the group, the hidden ones too: a drag moves them all */
  members: CalendarPost[];
  state: EventState;
  /** the first line of the content ('' when the post is media only) */
  text: string;
  /** the channels' names, joined */
  channel: string;
  /** why the group does not move (undefined when it does) */
  fixed?: string;
  /** the hover text: channels, states and the UTC truth */
  tooltip: string;
  /** waiting for approval, or sent back for changes (issue 31) */
  approval?: 'pending_approval' | 'changes_requested';
}

/** The states in the order they need a look: a mixed event takes the first one's colour. */
const ATTENTION: PostState[] = ['ERROR', 'QUEUE', 'DRAFT', 'PUBLISHED'];

/**
 * Why a group cannot be dragged, in the words the calendar shows; undefined when it can. The
 * API moves a group only as a whole (PUT /posts/group/{group}/date), so one post that went out
 * or failed keeps every channel of it where it is.
 */
export function whyFixed(members: readonly CalendarPost[]): string | undefined {
  const names = (state: PostState) => members.filter((p) => p.state === state).map((p) => p.integration.name).join(', ');
  if (members.some((p) => p.state === 'PUBLISHED')) {
    return members.length > 1 && members.some((p) => p.state !== 'PUBLISHED')
      ? `Already published on ${names('PUBLISHED')}: a published post stays where it went out, so its other channels stay with it. Open the post to change them.`
      : 'Published posts stay where they went out.';
  }
  if (members.some((p) => p.state === 'ERROR')) return `Failed on ${names('ERROR')}: retry it or make it a draft before moving it.`;
  return undefined;
}

/**
 * Posts as calendar events: one event per group (the channels of one request) and time, so a post
 * made for several channels is one event showing each channel (no sliver per channel). A group
 * whose posts sit at different times (moved one by one through the API) is one event per time.
 * `shown` are the posts the filters keep; `loaded` all the calendar has, for the whole group.
 */
export function groupEvents(shown: readonly CalendarPost[], loaded: readonly CalendarPost[] = shown) {
  const byGroup = new Map<string, CalendarPost[]>();
  for (const p of loaded) byGroup.set(p.group, [...(byGroup.get(p.group) ?? []), p]);
  const byEvent = new Map<string, CalendarPost[]>();
  for (const p of shown) {
    const key = `${p.group}@${p.publishDate}`;
    byEvent.set(key, [...(byEvent.get(key) ?? []), p]);
  }
  return [...byEvent.entries()].map(([key, posts]) => groupToEvent(key, posts, byGroup.get(posts[0]!.group) ?? posts));
}

export function groupToEvent(key: string, posts: CalendarPost[], members: CalendarPost[]) {
  const first = posts[0]!;
  const text = firstLine(first.content) || posts.map((p) => firstLine(p.content)).find(Boolean) || '';
  const channels: EventChannel[] = posts.map((p) => {
    const name = p.integration.name;
    const platform = platformName(p.integration.providerIdentifier);
    return { post: p, name, platform, label: `${name} (${platform}): ${STATE_LABEL[p.state] ?? p.state}` };
  });
  const states = new Set(posts.map((p) => p.state));
  const state: EventState = states.size === 1 ? first.state : 'MIXED';
  const fixed = whyFixed(members);
  const movable = fixed === undefined;
  const channel = channels.map((c) => c.name).join(', ');
  const lines = channels.map((c) => {
    const parts = c.post.thread.length > 0 ? ` · thread of ${c.post.thread.length + 1}` : '';
    const error = c.post.state === 'ERROR' && c.post.error ? ` · Error: ${c.post.error}` : '';
    return `${c.label}${parts}${error}`;
  });
  const repeating = posts.some((p) => p.seriesId);
  const approval = approvalOf(posts.find(inReview));
  const tooltip = `${lines.join('\n')}\n${utcTitle(first.publishDate)}${repeating ? ' · Repeating' : ''}${approval ? ` · ${STATUS_LABEL[approval.status]}` : ''}${text ? `\n${text}` : ''}${fixed ? `\n${fixed}` : ''}`;
  // the event takes the colour of the state that most needs a look
  const tint = state === 'MIXED' ? ATTENTION.find((s) => states.has(s))! : state;
  return {
    id: key,
    title: text ? `${channel}: ${text}` : channel,
    start: first.publishDate,
    allDay: false,
    // every event can be picked up: a group that cannot move is refused at the drop (eventAllow)
    // with the reason shown, rather than not reacting at all
    editable: true,
    startEditable: true,
    durationEditable: false,
    classNames: ['post-event', `post-${tint.toLowerCase()}`, ...(state === 'MIXED' ? ['post-mixed'] : []), ...(movable ? [] : ['post-fixed']), ...(repeating ? ['post-repeating'] : []), ...(approval ? ['post-review'] : [])],
    extendedProps: { group: first.group, post: first, channels, members, state, text, channel, fixed, tooltip, ...(approval ? { approval: approval.status as 'pending_approval' | 'changes_requested' } : {}) } satisfies GroupEventProps,
  } satisfies EventInput;
}

/** Monday = 1 … Sunday = 7 (luxon) → the offset back to the week's first day (FullCalendar: Sunday = 0). */
function startOfWeek(day: DateTime, firstDay: number): DateTime {
  const back = (day.weekday - (firstDay === 0 ? 7 : firstDay) + 7) % 7;
  return day.minus({ days: back }).startOf('day');
}

/**
 * The instants FullCalendar's view will span (its `activeStart`/`activeEnd`), computed the way it
 * does: a week from the week's first day, a day, or a month view's six whole weeks.
 */
export function viewRange(view: ViewName, date: string, timeZone: string, firstDay: number): { start: string; end: string } {
  const day = DateTime.fromISO(date, { zone: timeZone }).startOf('day');
  let start: DateTime;
  let end: DateTime;
  if (view === 'day') {
    start = day;
    end = day.plus({ days: 1 });
  } else if (view === 'month') {
    start = startOfWeek(day.startOf('month'), firstDay);
    end = start.plus({ weeks: 6 });
  } else {
    start = startOfWeek(day, firstDay);
    end = start.plus({ weeks: 1 });
  }
  return { start: start.toUTC().toISO()!, end: end.toUTC().toISO()! };
}

/** Today's date in a zone (YYYY-MM-DD). */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  return DateTime.fromJSDate(now).setZone(timeZone).toISODate()!;
}

/** The date (YYYY-MM-DD) of an instant in a zone. */
export function dateIn(instant: Date, timeZone: string): string {
  return DateTime.fromJSDate(instant).setZone(timeZone).toISODate()!;
}

/** The browser's first day of the week (FullCalendar: Sunday = 0), Monday when it cannot tell. */
export function localeFirstDay(locale: string = typeof navigator === 'undefined' ? 'en-GB' : navigator.language): number {
  try {
    const loc = new Intl.Locale(locale) as Intl.Locale & { getWeekInfo?: () => { firstDay: number }; weekInfo?: { firstDay: number } };
    const info = loc.getWeekInfo?.() ?? loc.weekInfo;
    if (info) return info.firstDay % 7;
  } catch {
    // an odd locale string: fall through
  }
  return 1;
}

/** Whether the browser's locale writes times on a 24-hour clock. */
export function localeUses24h(locale?: string): boolean {
  const cycle = new Intl.DateTimeFormat(locale, { hour: 'numeric' }).resolvedOptions().hourCycle;
  return cycle === 'h23' || cycle === 'h24';
}

/**
 * The instant a clicked slot stands for: a time slot is its own start; a whole day (month view)
 * gets 09:00 on that day in the display zone, a reasonable first guess the composer can change.
 */
export function slotInstant(date: Date, allDay: boolean, timeZone: string): string {
  if (!allDay) return date.toISOString();
  return DateTime.fromJSDate(date).setZone(timeZone).startOf('day').set({ hour: 9 }).toUTC().toISO()!;
}

/** What an open-slot marker stands for: a posting time of one channel with no post of its own yet. */
export interface OpenSlotProps {
  kind: 'open-slot';
  integrationId: string;
  name: string;
  /** the ISO instant of the slot */
  at: string;
}

export function isOpenSlot(props: unknown): props is OpenSlotProps {
  return typeof props === 'object' && props !== null && (props as { kind?: unknown }).kind === 'open-slot';
}

const DAY_MS = 86_400_000;

/**
 * The channels' posting times in `[start, end)` still to come and not taken by a post on that
 * channel, as light markers a click plans a post at (week and day views). Posting times are
 * minutes after 00:00 UTC, so each UTC day of the range has them at the same instants; the
 * calendar shows them in the person's zone. Disabled channels, channels that need reconnecting
 * and channels the filters leave out get none.
 */
export function openSlotEvents(
  integrations: readonly Integration[],
  posts: readonly CalendarPost[],
  range: { start: string; end: string },
  filters: CalendarFilters,
  now: number = Date.now(),
): EventInput[] {
  const start = Date.parse(range.start);
  const end = Date.parse(range.end);
  const taken = new Set(posts.map((p) => `${p.integration.id}@${Date.parse(p.publishDate)}`));
  const events: EventInput[] = [];
  for (const c of integrations) {
    if (c.disabled || c.refreshNeeded) continue;
    if (filters.channels.length > 0 && !filters.channels.includes(c.id)) continue;
    if (filters.group && c.customer?.id !== filters.group) continue;
    for (let day = Math.floor(start / DAY_MS) * DAY_MS; day < end; day += DAY_MS) {
      for (const { time } of c.postingTimes) {
        const at = day + time * 60_000;
        if (at < start || at >= end || at <= now || taken.has(`${c.id}@${at}`)) continue;
        const iso = new Date(at).toISOString();
        events.push({
          id: `slot:${c.id}@${iso}`,
          title: `Open slot on ${c.name}`,
          start: iso,
          allDay: false,
          editable: false,
          startEditable: false,
          durationEditable: false,
          classNames: ['cal-open-slot'],
          extendedProps: { kind: 'open-slot', integrationId: c.id, name: c.name, at: iso } satisfies OpenSlotProps,
        });
      }
    }
  }
  return events;
}

/**
 * Where the week and day views open: an hour before the time it is now in the person's zone, on
 * the hour (FullCalendar's `scrollTime`), so what happens now is on screen.
 */
export function scrollTimeFor(timeZone: string, now: Date = new Date()): string {
  const hour = Math.max(0, DateTime.fromJSDate(now).setZone(timeZone).hour - 1);
  return `${String(hour).padStart(2, '0')}:00:00`;
}

/** A slot an evergreen queue will fill (issue 30): planned, no post created yet. */
export interface PlannedSlotProps {
  kind: 'planned';
  queueId: string;
  queueName: string;
  integrationId: string;
  name: string;
  /** the ISO instant of the slot */
  at: string;
  /** the text the queue would post there */
  content: string;
}

export function isPlannedSlot(props: unknown): props is PlannedSlotProps {
  return typeof props === 'object' && props !== null && (props as { kind?: unknown }).kind === 'planned';
}

/** An evergreen queue's plan as `GET /evergreen/{id}/plan` answers it. */
export interface QueuePlan {
  queue: { id: string; name: string };
  slots: readonly { integrationId: string; at: string; itemId: string | null; content: string | null }[];
}

/**
 * The evergreen queues' planned slots in `[start, end)` still to come, as marked events that cannot
 * be moved (the queue creates the post when the slot comes within its horizon). Slots the queue
 * would leave empty, channels the filters leave out, and (with a state filter) anything but
 * scheduled posts are not shown.
 */
export function plannedEvents(
  plans: readonly QueuePlan[],
  integrations: readonly Integration[],
  range: { start: string; end: string },
  filters: CalendarFilters,
  now: number = Date.now(),
): EventInput[] {
  if (filters.states.length > 0 && !filters.states.includes('QUEUE')) return [];
  const start = Date.parse(range.start);
  const end = Date.parse(range.end);
  const byId = new Map(integrations.map((c) => [c.id, c]));
  const events: EventInput[] = [];
  for (const { queue, slots } of plans) {
    for (const s of slots) {
      const at = Date.parse(s.at);
      const c = byId.get(s.integrationId);
      if (!c || s.itemId === null || s.content === null || at < start || at >= end || at <= now) continue;
      if (filters.channels.length > 0 && !filters.channels.includes(c.id)) continue;
      if (filters.group && c.customer?.id !== filters.group) continue;
      const iso = new Date(at).toISOString();
      events.push({
        id: `planned:${queue.id}:${c.id}@${iso}`,
        title: `Planned by ${queue.name} on ${c.name}`,
        start: iso,
        allDay: false,
        editable: false,
        startEditable: false,
        durationEditable: false,
        classNames: ['cal-planned'],
        extendedProps: { kind: 'planned', queueId: queue.id, queueName: queue.name, integrationId: c.id, name: c.name, at: iso, content: s.content } satisfies PlannedSlotProps,
      });
    }
  }
  return events;
}

/** The open-slot markers without those an evergreen queue has planned (the planned event shows there instead). */
export function withoutPlanned(openSlots: EventInput[], planned: EventInput[]): EventInput[] {
  const taken = new Set(planned.map((e) => `${(e.extendedProps as PlannedSlotProps).integrationId}@${(e.extendedProps as PlannedSlotProps).at}`));
  return openSlots.filter((e) => !taken.has(`${(e.extendedProps as OpenSlotProps).integrationId}@${(e.extendedProps as OpenSlotProps).at}`));
}
