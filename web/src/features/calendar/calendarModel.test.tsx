import { describe, expect, it } from 'vitest';
import type { Integration } from '../../api/queries.js';
import { applyFilters, firstLine, groupEvents, isMovable, openSlotEvents, plainText, plannedEvents, readSearch, scrollTimeFor, slotInstant, viewRange, withoutPlanned, writeFilters, writePlace, type CalendarPost } from './calendarModel.js';

function post(over: Partial<CalendarPost> & { id: string }): CalendarPost {
  return {
    content: '<p>Hello</p>',
    publishDate: '2025-03-04T09:00:00.000Z',
    releaseURL: null,
    releaseId: null,
    state: 'QUEUE',
    group: 'g1',
    creationMethod: 'api',
    settings: {},
    tags: [],
    integration: { id: 'ch1', providerIdentifier: 'telegram', name: 'Acme News', picture: null },
    image: [],
    error: null,
    delay: 0,
    publishedAt: null,
    thread: [],
    createdAt: '2025-03-01T00:00:00.000Z',
    updatedAt: '2025-03-01T00:00:00.000Z',
    ...over,
  };
}

function channel(id: string, customer?: { id: string; name: string }): Integration {
  return {
    id,
    name: id,
    identifier: 'telegram',
    picture: null,
    disabled: false,
    profile: null,
    ...(customer ? { customer } : {}),
    refreshNeeded: false,
    sandbox: false,
    postingTimes: [],
    settings: {},
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
  };
}

describe('post content as a calendar line', () => {
  it('strips the editor’s HTML, decodes entities and keeps the first non-empty line', () => {
    expect(firstLine('<p></p><p>Launch <strong>day</strong> &amp; more</p><p>second</p>')).toBe('Launch day & more');
    expect(firstLine('plain text\nline two')).toBe('plain text');
    expect(firstLine('a<br>b')).toBe('a');
    expect(firstLine('&lt;script&gt;alert(1)&lt;/script&gt;')).toBe('<script>alert(1)</script>');
    expect(firstLine('<script>evil()</script><p>&#128640; rocket &#x2764;</p>')).toBe('🚀 rocket ❤');
    expect(firstLine('<p>   </p>')).toBe('');
  });

  it('shortens long lines with an ellipsis', () => {
    const line = firstLine(`<p>${'word '.repeat(60)}</p>`, 40);
    expect(line.length).toBeLessThanOrEqual(40);
    expect(line.endsWith('…')).toBe(true);
  });

  it('keeps paragraphs as lines in plain text', () => {
    expect(plainText('<p>one</p><p>two</p>').split('\n').filter(Boolean)).toEqual(['one', 'two']);
  });
});

describe('posts → events (one per group)', () => {

  it('titles the event with the channel and the first line, at the UTC instant, with the state as class', () => {
    const e = groupEvents([post({ id: 'p1', content: '<p>Big news</p><p>more</p>' })])[0]!;
    expect(e).toMatchObject({ title: 'Acme News: Big news', start: '2025-03-04T09:00:00.000Z', allDay: false, startEditable: true, durationEditable: false });
    expect(e.classNames).toEqual(['post-event', 'post-queue']);
    expect(e.extendedProps).toMatchObject({ text: 'Big news', channel: 'Acme News', group: 'g1', state: 'QUEUE', fixed: undefined });
    expect(e.extendedProps.channels.map((c) => c.label)).toEqual(['Acme News (Telegram): Queued']);
    expect(e.extendedProps.tooltip).toContain('2025-03-04 09:00 UTC');
  });

  it('the posts of one group at one time are one event showing every channel and its state', () => {
    const sky = { id: 'ch2', providerIdentifier: 'bluesky' as const, name: 'Acme Sky', picture: null };
    const other = { id: 'ch3', providerIdentifier: 'x' as const, name: 'Acme X', picture: null };
    const events = groupEvents([
      post({ id: 'a', content: 'Launch' }),
      post({ id: 'b', content: 'Launch', integration: sky, state: 'DRAFT' }),
      post({ id: 'c', group: 'g2', integration: other }),
    ]);
    expect(events).toHaveLength(2);
    const [group, single] = events as [(typeof events)[number], (typeof events)[number]];
    expect(group.extendedProps.channels.map((c) => c.label)).toEqual(['Acme News (Telegram): Queued', 'Acme Sky (Bluesky): Draft']);
    expect(group.extendedProps.state).toBe('MIXED');
    // a mixed event takes the colour of the state most in need of a look
    expect(group.classNames).toEqual(['post-event', 'post-queue', 'post-mixed']);
    expect(group.title).toBe('Acme News, Acme Sky: Launch');
    expect(single.extendedProps.channels).toHaveLength(1);
    // a group split across times (moved one post at a time through the API) is one event per time
    expect(groupEvents([post({ id: 'a' }), post({ id: 'b', integration: sky, publishDate: '2025-03-05T09:00:00.000Z' })])).toHaveLength(2);
  });

  it('a group moves only when none of its posts went out or failed, and says why not', () => {
    expect(groupEvents([post({ id: 'a', state: 'DRAFT' })])[0]!.extendedProps.fixed).toBeUndefined();
    expect(groupEvents([post({ id: 'b', state: 'PUBLISHED' })])[0]!.extendedProps.fixed).toBe('Published posts stay where they went out.');
    expect(groupEvents([post({ id: 'c', state: 'ERROR' })])[0]!.extendedProps.fixed).toContain('Failed on Acme News');
    // the channel filter hides the published one: the shown queued post still does not move, since its group does not
    const published = post({ id: 'd', state: 'PUBLISHED', integration: { id: 'ch2', providerIdentifier: 'bluesky' as const, name: 'Acme Sky', picture: null } });
    const queued = post({ id: 'e' });
    const e = groupEvents([queued], [queued, published])[0]!;
    expect(e.extendedProps.fixed).toContain('Already published on Acme Sky');
    expect(e.extendedProps.members.map((m) => m.id)).toEqual(['e', 'd']);
    expect(e.classNames).toContain('post-fixed');
    expect(['QUEUE', 'DRAFT', 'PUBLISHED', 'ERROR'].map((s) => isMovable(s as CalendarPost['state']))).toEqual([true, true, false, false]);
  });

  it('a media-only post is titled by its channel; a thread and an error show in the tooltip', () => {
    const e = groupEvents([post({ id: 'p', content: '', state: 'ERROR', error: 'Chat not found', thread: [{ id: 't', content: 'x', image: [], delay: 0, state: 'ERROR', releaseId: null, releaseURL: null, error: null, publishedAt: null }] })])[0]!;
    expect(e.title).toBe('Acme News');
    expect(e.extendedProps.tooltip).toContain('thread of 2');
    expect(e.extendedProps.tooltip).toContain('Error: Chat not found');
  });
});

describe('filters', () => {
  const posts = [
    post({ id: '1', state: 'QUEUE', integration: { id: 'a', providerIdentifier: 'telegram', name: 'A', picture: null } }),
    post({ id: '2', state: 'DRAFT', integration: { id: 'b', providerIdentifier: 'bluesky', name: 'B', picture: null } }),
    post({ id: '3', state: 'PUBLISHED', integration: { id: 'a', providerIdentifier: 'telegram', name: 'A', picture: null } }),
  ];
  const ids = (ps: CalendarPost[]) => ps.map((p) => p.id);

  it('keep everything when empty, else the chosen channels and states', () => {
    expect(ids(applyFilters(posts, { channels: [], states: [] }))).toEqual(['1', '2', '3']);
    expect(ids(applyFilters(posts, { channels: ['a'], states: [] }))).toEqual(['1', '3']);
    expect(ids(applyFilters(posts, { channels: [], states: ['DRAFT', 'PUBLISHED'] }))).toEqual(['2', '3']);
    expect(ids(applyFilters(posts, { channels: ['a'], states: ['QUEUE'] }))).toEqual(['1']);
  });

  it('a client group keeps its channels’ posts', () => {
    const integrations = [channel('a', { id: 'acme', name: 'Acme' }), channel('b')];
    expect(ids(applyFilters(posts, { channels: [], states: [], group: 'acme' }, integrations))).toEqual(['1', '3']);
  });

  it('round-trip through the URL, and a stale or odd URL still opens', () => {
    const params = writeFilters(new URLSearchParams('view=month&date=2025-03-01'), { channels: ['a', 'b'], states: ['DRAFT', 'QUEUE'], group: 'acme' });
    expect(params.toString()).toBe('view=month&date=2025-03-01&channel=a&channel=b&state=queue&state=draft&group=acme');
    expect(readSearch(params)).toEqual({ channels: ['a', 'b'], states: ['QUEUE', 'DRAFT'], group: 'acme', view: 'month', date: '2025-03-01' });
    expect(readSearch(new URLSearchParams('view=year&date=2025-02-31&state=bogus&channel='))).toEqual({ channels: [], states: [] });
    // every state ticked is no state filter
    expect(writeFilters(new URLSearchParams(), { channels: [], states: ['QUEUE', 'DRAFT', 'PUBLISHED', 'ERROR'] }).toString()).toBe('');
    expect(writePlace(new URLSearchParams('state=draft'), { view: 'list', date: '2025-03-03' }).toString()).toBe('state=draft&view=list&date=2025-03-03');
  });
});

describe('the visible range', () => {
  it('a week from the locale’s first day, midnight in the display zone', () => {
    // Wednesday 5 March 2025; Berlin is UTC+1 then
    expect(viewRange('week', '2025-03-05', 'Europe/Berlin', 1)).toEqual({ start: '2025-03-02T23:00:00.000Z', end: '2025-03-09T23:00:00.000Z' });
    expect(viewRange('list', '2025-03-05', 'UTC', 0)).toEqual({ start: '2025-03-02T00:00:00.000Z', end: '2025-03-09T00:00:00.000Z' });
    expect(viewRange('day', '2025-03-05', 'America/New_York', 1)).toEqual({ start: '2025-03-05T05:00:00.000Z', end: '2025-03-06T05:00:00.000Z' });
  });

  it('a week across the change to summer time ends on wall-clock midnight', () => {
    expect(viewRange('week', '2025-03-30', 'Europe/Berlin', 1)).toEqual({ start: '2025-03-23T23:00:00.000Z', end: '2025-03-30T22:00:00.000Z' });
  });

  it('a month view spans six whole weeks from the week of the 1st', () => {
    // 1 March 2025 is a Saturday: the grid starts Monday 24 February
    expect(viewRange('month', '2025-03-19', 'UTC', 1)).toEqual({ start: '2025-02-24T00:00:00.000Z', end: '2025-04-07T00:00:00.000Z' });
  });
});

describe('a clicked slot', () => {
  it('a time slot is its instant; a whole day is 09:00 there in the display zone', () => {
    expect(slotInstant(new Date('2025-03-05T13:30:00Z'), false, 'Europe/Berlin')).toBe('2025-03-05T13:30:00.000Z');
    expect(slotInstant(new Date('2025-03-04T23:00:00Z'), true, 'Europe/Berlin')).toBe('2025-03-05T08:00:00.000Z');
  });
});

describe('open posting slots (week and day views)', () => {
  const range = { start: '2025-03-03T00:00:00.000Z', end: '2025-03-05T00:00:00.000Z' };
  const noFilters = { channels: [], states: [] };
  const now = Date.parse('2025-03-03T12:00:00.000Z');
  const withTimes = (id: string, times: number[], over: Partial<Integration> = {}) => ({ ...channel(id), postingTimes: times.map((time) => ({ time })), ...over });

  it('marks each posting time still to come that the channel has no post at', () => {
    const slots = openSlotEvents([withTimes('ch1', [9 * 60, 14 * 60])], [post({ id: 'p', publishDate: '2025-03-04T09:00:00.000Z' })], range, noFilters, now);
    // 03-03 09:00 is past, 03-04 09:00 is taken by the post
    expect(slots.map((s) => s.start)).toEqual(['2025-03-03T14:00:00.000Z', '2025-03-04T14:00:00.000Z']);
    expect(slots[0]).toMatchObject({ classNames: ['cal-open-slot'], startEditable: false, extendedProps: { kind: 'open-slot', integrationId: 'ch1', at: '2025-03-03T14:00:00.000Z' } });
  });

  it('a post on another channel leaves the slot open; filters, disabled and reconnect-needed channels hide slots', () => {
    const other = [post({ id: 'p', publishDate: '2025-03-04T09:00:00.000Z', integration: { id: 'ch2', providerIdentifier: 'telegram', name: 'Other', picture: null } })];
    expect(openSlotEvents([withTimes('ch1', [9 * 60])], other, range, noFilters, now).map((s) => s.start)).toEqual(['2025-03-04T09:00:00.000Z']);
    const list = [withTimes('ch1', [9 * 60]), withTimes('off', [9 * 60], { disabled: true }), withTimes('stale', [9 * 60], { refreshNeeded: true })];
    expect(openSlotEvents(list, [], range, noFilters, now)).toHaveLength(1);
    expect(openSlotEvents(list, [], range, { channels: ['off'], states: [] }, now)).toEqual([]);
    expect(openSlotEvents([withTimes('ch1', [9 * 60], { customer: { id: 'g', name: 'G' } })], [], range, { ...noFilters, group: 'other' }, now)).toEqual([]);
  });
});

describe('evergreen planned slots', () => {
  const range = { start: '2025-03-03T00:00:00.000Z', end: '2025-03-05T00:00:00.000Z' };
  const noFilters = { channels: [], states: [] };
  const now = Date.parse('2025-03-03T12:00:00.000Z');
  const plan = {
    queue: { id: 'q1', name: 'Tips' },
    slots: [
      { integrationId: 'ch1', at: '2025-03-03T09:00:00.000Z', itemId: 'i1', content: 'past' },
      { integrationId: 'ch1', at: '2025-03-04T09:00:00.000Z', itemId: 'i1', content: 'Tip one' },
      { integrationId: 'ch1', at: '2025-03-04T14:00:00.000Z', itemId: null, content: null },
      { integrationId: 'ch2', at: '2025-03-04T09:00:00.000Z', itemId: 'i2', content: 'Tip two' },
      { integrationId: 'gone', at: '2025-03-04T09:00:00.000Z', itemId: 'i2', content: 'Tip two' },
      { integrationId: 'ch1', at: '2025-03-06T09:00:00.000Z', itemId: 'i2', content: 'after the range' },
    ],
  };

  it('shows the slots still to come that the queue will fill, fixed, with its name and text; not empty, past or unknown ones', () => {
    const events = plannedEvents([plan], [channel('ch1'), channel('ch2')], range, noFilters, now);
    expect(events.map((e) => `${(e.extendedProps as { integrationId: string }).integrationId} ${e.start as string}`)).toEqual(['ch1 2025-03-04T09:00:00.000Z', 'ch2 2025-03-04T09:00:00.000Z']);
    expect(events[0]).toMatchObject({ classNames: ['cal-planned'], startEditable: false, extendedProps: { kind: 'planned', queueId: 'q1', queueName: 'Tips', content: 'Tip one' } });
  });

  it('follows the channel, client and state filters', () => {
    expect(plannedEvents([plan], [channel('ch1'), channel('ch2')], range, { channels: ['ch2'], states: [] }, now)).toHaveLength(1);
    expect(plannedEvents([plan], [channel('ch1'), channel('ch2')], range, { channels: [], states: ['PUBLISHED'] }, now)).toEqual([]);
    expect(plannedEvents([plan], [channel('ch1'), channel('ch2')], range, { channels: [], states: ['QUEUE'] }, now)).toHaveLength(2);
    expect(plannedEvents([plan], [channel('ch1', { id: 'g', name: 'G' }), channel('ch2')], range, { ...noFilters, group: 'g' }, now)).toHaveLength(1);
  });

  it('takes the place of the open-slot marker at the same channel and time', () => {
    const ch1 = { ...channel('ch1'), postingTimes: [{ time: 9 * 60 }, { time: 14 * 60 }] };
    const open = openSlotEvents([ch1], [], range, noFilters, now);
    const planned = plannedEvents([plan], [ch1], range, noFilters, now);
    expect(withoutPlanned(open, planned).map((e) => e.start)).toEqual(['2025-03-03T14:00:00.000Z', '2025-03-04T14:00:00.000Z']);
  });
});

describe('where the time grid opens', () => {
  it('an hour before now in the person’s zone, on the hour', () => {
    const at = new Date('2025-03-03T16:20:00.000Z');
    expect(scrollTimeFor('UTC', at)).toBe('15:00:00');
    expect(scrollTimeFor('Asia/Kolkata', at)).toBe('20:00:00'); // 21:50 there
    expect(scrollTimeFor('UTC', new Date('2025-03-03T00:10:00.000Z'))).toBe('00:00:00');
  });
});
