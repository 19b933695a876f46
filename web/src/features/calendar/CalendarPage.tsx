import type { DateSpanApi, DatesSetArg, EventApi, EventClickArg, EventContentArg, EventDropArg } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import interactionPlugin, { type DateClickArg, type EventDragStartArg } from '@fullcalendar/interaction';
import listPlugin from '@fullcalendar/list';
import luxonPlugin from '@fullcalendar/luxon3';
import FullCalendar from '@fullcalendar/react';
import timeGridPlugin from '@fullcalendar/timegrid';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useGroups, useIntegrations, usePosts } from '../../api/queries.js';
import { useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Notice, PageHeader, Spinner, STATE_LABEL } from '../../components/ui.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import type { ComposeInitial } from '../compose/ComposeDialog.js';
import { GettingStarted } from '../onboarding/GettingStarted.js';
import { NewPostButton } from '../onboarding/NewPostButton.js';
import { useConnectChannel } from '../onboarding/useConnectChannel.js';
import { TrySandboxButton } from '../sandbox/TrySandbox.js';
import { CalendarFilters } from './CalendarFilters.js';
import { ChannelAvatar } from './ChannelAvatar.js';
import { useEvergreenPlans } from './evergreenPlans.js';
import { useFullCalendarRepairs } from './fullCalendarA11y.js';
import { moveBack, moveGroup, type GroupPlace } from './reschedule.js';
import { RepeatIcon, StateIcon } from './StateIcon.js';
import { STATUS_LABEL } from '../approvals/types.js';
import {
  applyFilters,
  dateIn,
  groupEvents,
  isOpenSlot,
  isPlannedSlot,
  localeFirstDay,
  localeUses24h,
  openSlotEvents,
  plannedEvents,
  readSearch,
  scrollTimeFor,
  slotInstant,
  todayIn,
  viewNameOf,
  viewRange,
  withoutPlanned,
  VIEWS,
  writeFilters,
  writePlace,
  type CalendarFilters as Filters,
  type CalendarPost,
  type GroupEventProps,
  type PlannedSlotProps,
  type ViewName,
} from './calendarModel.js';
import './calendar.css';

// the composer is its own chunk, fetched when it is first opened
const ComposeDialog = lazy(() => import('../compose/ComposeDialog.js'));

const NARROW = '(max-width: 760px)';
const PLUGINS = [luxonPlugin, dayGridPlugin, timeGridPlugin, listPlugin, interactionPlugin];
const PERIOD: Record<ViewName, string> = { week: 'this week', month: 'this month', day: 'this day', list: 'this week' };

type Feedback = { kind: 'info'; text: string } | { kind: 'bad'; error: unknown };

/** The last move, shown with Undo until the person dismisses it or moves something else. */
type Moved = { text: string; title: string; back?: GroupPlace; undoing?: boolean };

const WHEN = { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' } as const;

/** "“Spring launch” on Acme News and Acme Sky": what a move toast names. */
function describeGroup(p: GroupEventProps): string {
  const names = p.members.map((m) => m.integration.name);
  const channels = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
  const text = p.text.length > 40 ? `${p.text.slice(0, 39).trimEnd()}…` : p.text;
  return text ? `“${text}” on ${channels}` : `the post on ${channels}`;
}

/** "GMT+1": the zone's offset now, for the toolbar. */
function offsetLabel(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en', { timeZone, timeZoneName: 'shortOffset' }).formatToParts(new Date()).find((p) => p.type === 'timeZoneName')?.value ?? '';
  } catch {
    return '';
  }
}

/**
 * An event as the calendar draws it: one per group (a post made for several channels at once),
 * with the time, each channel as an avatar ringed in its post's state colour (a mark for the
 * state's shape, its name for screen readers and on hover), the overall state and the first line.
 */
function EventContent({ arg }: { arg: EventContentArg }) {
  if (isOpenSlot(arg.event.extendedProps)) return <OpenSlotContent arg={arg} name={arg.event.extendedProps.name} />;
  if (isPlannedSlot(arg.event.extendedProps)) return <PlannedContent arg={arg} props={arg.event.extendedProps} />;
  const p = arg.event.extendedProps as GroupEventProps;
  const list = arg.view.type.startsWith('list');
  const label = p.state === 'MIXED' ? 'Mixed' : (STATE_LABEL[p.state] ?? p.state);
  const size = list ? 22 : 18;
  return (
    <div className={p.channels.length > 1 ? 'cal-event cal-event-multi' : 'cal-event'} title={p.tooltip}>
      <div className="cal-event-main">
        <div className="cal-event-head">
          {!list && arg.timeText ? <span className="cal-event-time">{arg.timeText}</span> : null}
          <ul className="cal-channels" aria-label={p.channels.length > 1 ? `${p.channels.length} channels` : 'Channel'}>
            {p.channels.map((c) => (
              <li key={c.post.id} className={`cal-channel post-${c.post.state.toLowerCase()}`} title={c.label} data-post-id={c.post.id}>
                <ChannelAvatar picture={c.post.integration.picture} platform={c.post.integration.providerIdentifier} name={c.post.integration.name} size={size} channelId={c.post.integration.id} />
                <span className="cal-channel-badge">
                  <StateIcon state={c.post.state} />
                </span>
                <span className="visually-hidden">{c.label}</span>
              </li>
            ))}
          </ul>
          <span className="cal-event-channel" aria-hidden={p.channels.length > 1 && !list ? true : undefined}>
            {p.channel}
          </span>
          {p.channels.some((c) => c.post.seriesId) ? <RepeatIcon /> : null}
          {p.approval ? (
            <span className={`cal-review-mark review-${p.approval}`} title={STATUS_LABEL[p.approval]}>
              <span aria-hidden="true">{p.approval === 'pending_approval' ? '⏳' : '✎'}</span>
              <span className="visually-hidden">{STATUS_LABEL[p.approval]}</span>
            </span>
          ) : null}
          <span className="cal-event-mark">
            {p.state === 'MIXED' ? null : <StateIcon state={p.state} />}
            <span className={list ? 'cal-event-state' : 'cal-event-state visually-hidden'}>{label}</span>
          </span>
        </div>
        <div className="cal-event-text">{p.text || <em>No text</em>}</div>
      </div>
    </div>
  );
}

/**
 * Where an event may be dropped: a time still to come (the API would publish a queued post at
 * once), and only for a group that can move (published and failed posts stay where they are).
 */
function allowDrop(span: DateSpanApi, moving: EventApi | null): boolean {
  if (!moving) return true;
  return (moving.extendedProps as GroupEventProps).fixed === undefined && span.start.getTime() >= Date.now();
}

/** An open posting slot of a channel: a light marker; a click plans a post there. */
function OpenSlotContent({ arg, name }: { arg: EventContentArg; name: string }) {
  return (
    <div className="cal-open-slot-body" title={`Open slot on ${name}: click to plan a post at ${arg.timeText}`}>
      {/* the row says the time; narrow columns keep room for the channel's name */}
      <span aria-hidden="true">+</span>
      <span className="cal-open-slot-name" aria-hidden="true">
        {name}
      </span>
      <span className="visually-hidden">
        Open slot on {name} at {arg.timeText}: plan a post
      </span>
    </div>
  );
}

/** A slot an evergreen queue will fill: marked "planned", with the queue's name and the text it would post. */
function PlannedContent({ arg, props }: { arg: EventContentArg; props: PlannedSlotProps }) {
  const list = arg.view.type.startsWith('list');
  return (
    <div className="cal-event cal-planned-body" title={`Planned by the evergreen queue “${props.queueName}” on ${props.name}, not yet created: ${props.content}`}>
      <div className="cal-event-head">
        {!list && arg.timeText ? <span className="cal-event-time">{arg.timeText}</span> : null}
        <span className="cal-event-channel">{props.name}</span>
        <span className="cal-planned-tag">Planned</span>
      </div>
      <div className="cal-event-text">{props.content}</div>
      <span className="visually-hidden">
        Planned by the evergreen queue {props.queueName}, not yet created
      </span>
    </div>
  );
}

function renderEventContent(arg: EventContentArg) {
  return <EventContent arg={arg} />;
}

/** The organisation's posts of every channel in week, month, day and list views (issue 16). */
export default function CalendarPage() {
  const timeZone = useTimeZone();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const search = useMemo(() => readSearch(params), [params]);
  // The filters answer a click at once (local state) and are mirrored in the URL, so a reload or a
  // shared link keeps them; a change of the URL from outside (back, a link) is taken in.
  const urlFilters = useMemo(() => writeFilters(new URLSearchParams(), search).toString(), [search]);
  const [filters, setFilterState] = useState<Filters>(() => readSearch(new URLSearchParams(urlFilters)));
  const [seenUrl, setSeenUrl] = useState(urlFilters);
  if (urlFilters !== seenUrl) {
    setSeenUrl(urlFilters);
    setFilterState(readSearch(new URLSearchParams(urlFilters)));
  }

  const firstDay = useMemo(() => localeFirstDay(), []);
  const hour12 = useMemo(() => !localeUses24h(), []);
  // where the calendar opens: the URL's view and date, else this week (a list on narrow screens)
  const [initial] = useState(() => ({
    view: search.view ?? (typeof window !== 'undefined' && window.matchMedia?.(NARROW).matches ? 'list' : 'week'),
    date: search.date ?? todayIn(timeZone),
  }));
  // the visible range, known before FullCalendar lays out (the same instants its datesSet gives)
  const [range, setRange] = useState(() => viewRange(initial.view, initial.date, timeZone, firstDay));

  const integrations = useIntegrations();
  const groups = useGroups();
  const posts = usePosts(range.start, range.end, filters.group);
  // while another period loads, the last answer stays (FullCalendar shows only what falls in view)
  const lastPosts = useRef<CalendarPost[]>([]);
  if (posts.data) lastPosts.current = posts.data;
  const loaded = posts.data ?? lastPosts.current;
  // FullCalendar's unnamed icons, mislabelled month cells and unreachable scrollers, repaired after each render
  const frame = useRef<HTMLDivElement>(null);
  useFullCalendarRepairs(frame);

  const shown = useMemo(() => applyFilters(loaded, filters, integrations.data ?? []), [loaded, filters, integrations.data]);
  // one event per group (the channels of one request), the whole group known to each
  const groupEventList = useMemo(() => groupEvents(shown, loaded), [shown, loaded]);

  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const [moved, setMoved] = useState<Moved | null>(null);
  const [compose, setCompose] = useState<{ key: number; initial: ComposeInitial } | null>(null);
  const openComposer = useCallback((init: ComposeInitial) => setCompose({ key: Date.now(), initial: init }), []);

  const setFilters = useCallback(
    (next: Filters) => {
      setFilterState(next);
      setParams((p) => writeFilters(p, next), { replace: true });
    },
    [setParams],
  );

  // the view and the period shown, written to the URL after FullCalendar has rendered them
  const [place, setPlace] = useState<{ view: ViewName; date: string | null }>({ view: initial.view, date: search.date ?? null });
  const onDatesSet = useCallback(
    (arg: DatesSetArg) => {
      const start = arg.start.toISOString();
      const end = arg.end.toISOString();
      setRange((r) => (r.start === start && r.end === end ? r : { start, end }));
      const name = viewNameOf(arg.view.type) ?? 'week';
      // the date is kept only away from today's period, so /calendar?view=week stays "this week"
      const now = Date.now();
      const showsToday = arg.view.currentStart.getTime() <= now && now < arg.view.currentEnd.getTime();
      const date = showsToday ? null : dateIn(arg.view.currentStart, timeZone);
      setPlace((p) => (p.view === name && p.date === date ? p : { view: name, date }));
    },
    [timeZone],
  );
  useEffect(() => {
    setParams(
      (p) => {
        const next = writePlace(p, { view: place.view, date: place.date ?? '' });
        if (!place.date) next.delete('date');
        return next.toString() === p.toString() ? p : next;
      },
      { replace: true },
    );
  }, [place, setParams]);
  const view = place.view;
  // the week and day views also show each channel's posting times that no post of it takes yet
  const timeGrid = view === 'week' || view === 'day';
  // evergreen queues' slots still to come: planned, no post yet (the queue creates it within its horizon)
  const plans = useEvergreenPlans(range);
  const planned = useMemo(() => plannedEvents(plans, integrations.data ?? [], range, filters), [plans, integrations.data, range, filters]);
  const events = useMemo(
    () => (timeGrid ? [...groupEventList, ...planned, ...withoutPlanned(openSlotEvents(integrations.data ?? [], loaded, range, filters), planned)] : [...groupEventList, ...planned]),
    [timeGrid, groupEventList, planned, integrations.data, loaded, range, filters],
  );
  // the time grid opens an hour before now in the person's zone (fixed at first render)
  const [scrollTime] = useState(() => scrollTimeFor(timeZone));

  const moveEvent = useCallback(
    async (info: EventDropArg) => {
      const p = info.event.extendedProps as GroupEventProps;
      const start = info.event.start;
      if (!start || p.fixed !== undefined) {
        info.revert();
        if (p.fixed) setFeedback({ kind: 'info', text: p.fixed });
        return;
      }
      if (start.getTime() < Date.now()) {
        info.revert();
        setFeedback({ kind: 'info', text: 'Posts cannot be moved into the past: drop it on a time still to come.' });
        return;
      }
      setFeedback(null);
      // where every post of the group was, for Undo (a post not loaded was at the dragged event's time)
      const was = info.oldEvent.start?.toISOString() ?? p.post.publishDate;
      const back: GroupPlace = { group: p.group, posts: p.members.map((m) => ({ id: m.id, publishDate: m.publishDate })) };
      const result = await moveGroup(queryClient, p.group, start.toISOString());
      if (result.ok) {
        for (const id of result.posts) if (!back.posts.some((b) => b.id === id)) back.posts.push({ id, publishDate: was });
        const when = formatDateTime(result.publishDate, timeZone, WHEN);
        setMoved({ text: `Moved ${describeGroup(p)} to ${when}.`, title: utcTitle(result.publishDate), back });
      } else {
        // the API said no: the group goes back where it was, with the API's reason
        info.revert();
        setMoved(null);
        setFeedback({ kind: 'bad', error: result.error });
      }
    },
    [queryClient, timeZone],
  );
  const onEventDrop = useCallback((info: EventDropArg) => void moveEvent(info), [moveEvent]);
  // a group that cannot move says why as soon as it is picked up (the drop is then refused)
  const onEventDragStart = useCallback((info: EventDragStartArg) => {
    const { fixed } = info.event.extendedProps as GroupEventProps;
    if (fixed) setFeedback({ kind: 'info', text: fixed });
  }, []);

  const undoMove = useCallback(async () => {
    const back = moved?.back;
    if (!back || moved.undoing) return;
    setMoved({ ...moved, undoing: true });
    const result = await moveBack(queryClient, back);
    if (result.ok) {
      const when = formatDateTime(back.posts[0]!.publishDate, timeZone, WHEN);
      setMoved({ text: `Moved back to ${when}.`, title: utcTitle(back.posts[0]!.publishDate) });
    } else {
      setMoved(null);
      setFeedback({ kind: 'bad', error: result.error });
    }
  }, [moved, queryClient, timeZone]);

  // Ctrl+Z / ⌘Z undoes the last move while its toast shows (not while typing somewhere)
  useEffect(() => {
    if (!moved?.back) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== 'z' || !(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.closest('[role="dialog"]'))) return;
      e.preventDefault();
      void undoMove();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [moved, undoMove]);

  const onEventClick = useCallback(
    (info: EventClickArg) => {
      info.jsEvent.preventDefault();
      const props = info.event.extendedProps;
      if (isOpenSlot(props)) {
        setFeedback(null);
        openComposer({ date: props.at, integrationIds: [props.integrationId] });
        return;
      }
      // a planned evergreen slot has no post yet: its queue's page shows the plan and the items
      if (isPlannedSlot(props)) {
        void navigate(`/autopilot/evergreen/${encodeURIComponent(props.queueId)}`);
        return;
      }
      // a click on one channel's avatar opens that channel's post; elsewhere, the group's first
      const avatar = info.jsEvent.target instanceof Element ? info.jsEvent.target.closest<HTMLElement>('[data-post-id]') : null;
      const id = avatar?.dataset.postId ?? (info.event.extendedProps as GroupEventProps).post.id;
      void navigate(`/posts/${encodeURIComponent(id)}`);
    },
    [navigate, openComposer],
  );

  const onDateClick = useCallback(
    (arg: DateClickArg) => {
      const at = slotInstant(arg.date, arg.allDay, timeZone);
      if (new Date(at).getTime() < Date.now()) {
        setFeedback({ kind: 'info', text: 'That time has passed: pick a slot still to come to plan a post.' });
        return;
      }
      setFeedback(null);
      openComposer({ date: at });
    },
    [openComposer, timeZone],
  );

  const hidden = loaded.length - shown.length;
  const filtering = filters.channels.length > 0 || filters.states.length > 0 || Boolean(filters.review);
  const noChannels = integrations.data?.length === 0;
  const connect = useConnectChannel();
  // "Try it with sandbox channels": the composer opens with the new sandbox channels selected
  const trySandbox = useCallback((made: { id: string }[]) => openComposer({ integrationIds: made.map((c) => c.id) }), [openComposer]);
  const timeFormat = useMemo(() => ({ hour: '2-digit', minute: '2-digit', hour12 }) as const, [hour12]);

  return (
    <div className="cal-page">
      <PageHeader
        title="Calendar"
        actions={<NewPostButton noChannels={noChannels} onNew={() => openComposer({})} onConnect={connect.open} />}
      />

      <GettingStarted
        channels={integrations.data?.length}
        onConnect={connect.open}
        onWrite={() => openComposer({})}
        connectExtraActions={<TrySandboxButton onConnected={trySandbox} />}
      />
      {connect.dialog}
      {integrations.error ? <ErrorNotice error={integrations.error} /> : null}
      {groups.error ? <ErrorNotice error={groups.error} /> : null}

      <div className="cal-toolbar">
        <CalendarFilters filters={filters} onChange={setFilters} integrations={integrations.data ?? []} groups={groups.data ?? []} />
        <p className="cal-zone" title="Times are stored in UTC; hover a post to see its UTC time. Change your time zone in Settings.">
          {posts.isFetching ? <Spinner label="Loading posts" /> : null}
          Times in <strong>{timeZone}</strong> {offsetLabel(timeZone) ? <span className="hint">({offsetLabel(timeZone)})</span> : null}
        </p>
      </div>

      <div className="cal-messages">
        {posts.error ? (
          <div className="cal-error">
            <ErrorNotice error={posts.error} />
            <Button variant="secondary" onClick={() => void posts.refetch()}>
              Try again
            </Button>
          </div>
        ) : null}
        {feedback?.kind === 'bad' ? (
          <div className="cal-feedback">
            <ErrorNotice error={feedback.error} />
            <Button variant="ghost" aria-label="Dismiss" onClick={() => setFeedback(null)}>
              ×
            </Button>
          </div>
        ) : feedback ? (
          <div className="cal-feedback">
            <Notice kind={feedback.kind}>{feedback.text}</Notice>
            <Button variant="ghost" aria-label="Dismiss" onClick={() => setFeedback(null)}>
              ×
            </Button>
          </div>
        ) : null}
        {noChannels ? (
          <div className="cal-empty">
            <p>No channels yet: connect one to plan posts, or try Tidings first with sandbox channels (simulated platforms: nothing is published for real).</p>
            <TrySandboxButton onConnected={trySandbox} />
          </div>
        ) : null}
        {posts.isSuccess && !noChannels && shown.length === 0 && planned.length === 0 ? (
          <p className="cal-empty" role="status">
            {filtering && hidden > 0 ? (
              <>
                No posts match these filters {PERIOD[view]} ({hidden} hidden).{' '}
                <button type="button" className="linklike" onClick={() => setFilters({ channels: [], states: [], ...(filters.group ? { group: filters.group } : {}) })}>
                  Clear the filters
                </button>
              </>
            ) : (
              <>Nothing planned {PERIOD[view]}. Click a time slot or “New post” to plan one.</>
            )}
          </p>
        ) : null}
      </div>

      <div className="cal-frame" ref={frame} aria-busy={posts.isPending}>
        <FullCalendar
          plugins={PLUGINS}
          timeZone={timeZone}
          initialView={VIEWS[initial.view]}
          initialDate={initial.date}
          firstDay={firstDay}
          height="100%"
          headerToolbar={{ left: 'prev,next today', center: 'title', right: 'timeGridWeek,dayGridMonth,timeGridDay,listWeek' }}
          buttonText={{ today: 'Today', week: 'Week', month: 'Month', day: 'Day', list: 'List' }}
          views={{
            timeGridWeek: { dayHeaderFormat: { weekday: 'short', day: 'numeric', month: 'short' } },
            timeGridDay: { dayHeaderFormat: { weekday: 'long', day: 'numeric', month: 'long' } },
            dayGridMonth: { dayHeaderFormat: { weekday: 'short' }, eventDisplay: 'block', dayMaxEvents: 4 },
            listWeek: { listDayFormat: { weekday: 'long', day: 'numeric', month: 'long' }, listDaySideFormat: false },
          }}
          allDaySlot={false}
          slotDuration="00:30:00"
          scrollTime={scrollTime}
          slotLabelFormat={timeFormat}
          eventTimeFormat={timeFormat}
          displayEventEnd={false}
          defaultTimedEventDuration="00:30"
          nowIndicator
          navLinks
          events={events}
          eventContent={renderEventContent}
          eventInteractive
          // groups at the same time sit side by side, each one clickable and draggable
          slotEventOverlap={false}
          editable={false}
          eventDurationEditable={false}
          eventAllow={allowDrop}
          eventDragStart={onEventDragStart}
          eventDrop={onEventDrop}
          eventClick={onEventClick}
          dateClick={onDateClick}
          datesSet={onDatesSet}
          noEventsContent={posts.isPending ? 'Loading posts…' : 'No posts in this period.'}
        />
      </div>

      {/* the last move, with Undo: a live region that is always there, so its news is read out */}
      <div className="cal-toast-host" role="status" aria-live="polite">
        {moved ? (
          <div className="cal-toast" title={moved.title}>
            <span className="cal-toast-text">{moved.text}</span>
            {moved.back ? (
              <Button variant="secondary" onClick={() => void undoMove()} disabled={moved.undoing} aria-keyshortcuts="Control+Z Meta+Z">
                {moved.undoing ? 'Undoing…' : 'Undo'}
              </Button>
            ) : null}
            <Button variant="ghost" aria-label="Dismiss" onClick={() => setMoved(null)}>
              ×
            </Button>
          </div>
        ) : null}
      </div>

      {compose ? (
        <Suspense fallback={null}>
          <ComposeDialog key={compose.key} open onOpenChange={(open) => (open ? undefined : setCompose(null))} initial={compose.initial} />
        </Suspense>
      ) : null}
    </div>
  );
}
