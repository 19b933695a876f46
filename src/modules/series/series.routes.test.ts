import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, useTestApp } from '../../../test/helpers.js';
import { createChannel, eventsOf } from '../../../test/factories.js';
import { createManualClock } from '../../lib/clock.js';
import { EVENT_PAYLOAD_SCHEMAS } from '../../core/webhooks/event-schemas.js';

type Occ = { index: number; publishDate: string; posts: { postId: string; integration: string; group: string }[] };
type Created = { series: { id: string; nextIndex: number; completed: boolean; broken: null | { reason: string } }; occurrences: Occ[] };

const DAY = 24 * 3600_000;
// Before the late-October DST change in Europe (2026-10-25).
const clock = createManualClock(Date.UTC(2026, 9, 10, 12, 0, 0));

describe('series routes', () => {
  const { t, orgs: { acme, beta } } = useTestApp({ clock }, 'Acme', 'Beta');
  let sky: string;
  let sky2: string;
  beforeAll(async () => {
    sky = (await createChannel(t, acme, 'bluesky', { name: 'Acme Sky' })).id;
    sky2 = (await createChannel(t, acme, 'bluesky', { name: 'Acme Sky 2' })).id;
  });

  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, key = acme.apiKey) =>
    call(t.app, key, { method, url: `/public/v1${url}`, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  const entry = (id: string, content = 'Weekly hello') => ({ integration: { id }, value: [{ content, image: [] }] });
  const rule = (extra: Record<string, unknown> = {}) => ({ frequency: 'weekly', interval: 1, time: '09:00', timeZone: 'Europe/Berlin', startDate: '2026-10-12', ...extra });
  const createSeries = async (body: Record<string, unknown>) => {
    const res = await api('POST', '/series', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<Created>();
  };
  const seriesRows = async (seriesId: string) =>
    (
      await t.deps.database.sql.executeSql(
        `SELECT id, series_index, integration_id, state, deleted_at FROM posts WHERE series_id = $1 AND parent_post_id IS NULL ORDER BY series_index, integration_id`,
        [seriesId],
      )
    ).rows as { id: string; series_index: number; integration_id: string; state: string; deleted_at: string | null }[];

  it('a weekly 09:00 Europe/Berlin series is 07:00Z before the October change and 08:00Z after, each occurrence a queued post due then', async () => {
    const r = await createSeries({ rule: rule({ count: 4 }), posts: [entry(sky)] });
    expect(r.occurrences.map((o) => o.publishDate)).toEqual(['2026-10-12T07:00:00.000Z', '2026-10-19T07:00:00.000Z', '2026-10-26T08:00:00.000Z', '2026-11-02T08:00:00.000Z']);
    expect(r.series.completed).toBe(true);
    for (const o of r.occurrences) {
      const post = await api('GET', `/posts/${o.posts[0]!.postId}`);
      expect(post.statusCode).toBe(200);
      // the publisher's due time is the occurrence's instant
      expect(post.json()).toMatchObject({ state: 'QUEUE', publishDate: o.publishDate, nextAttemptAt: o.publishDate, creationMethod: 'SERIES' });
    }
    const listed = await api('GET', `/posts?startDate=2026-10-01T00:00:00Z&endDate=2026-11-30T00:00:00Z`);
    const mine = listed.json<{ posts: { id: string; seriesId: string | null; inter: number | null }[] }>().posts.filter((p) => p.seriesId === r.series.id);
    expect(mine).toHaveLength(4);
    expect(mine.every((p) => p.inter === null)).toBe(true);
    const ev = (await eventsOf(t, acme.id)).filter((e) => e.type === 'series.created' && (e.payload.series as { id: string }).id === r.series.id);
    expect(ev).toHaveLength(1);
    expect(EVENT_PAYLOAD_SCHEMAS['series.created'].parse(ev[0]!.payload)).toMatchObject({ occurrences: 4, series: { frequency: 'weekly', interval: 1, time: '09:00', timeZone: 'Europe/Berlin' } });
    const detail = await api('GET', `/series/${r.series.id}`);
    expect(detail.json()).toMatchObject({ id: r.series.id, counts: { created: 4, queued: 4 }, broken: null });
  });

  it('refuses bad rules with 400 naming each field', async () => {
    const res = await api('POST', '/series', {
      rule: { frequency: 'yearly', interval: 0, time: '25:00', timeZone: 'Mars/Olympus', startDate: '2026-02-30', count: 0 },
      posts: [entry(sky)],
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    const paths = res.json<{ fields: { path: string }[] }>().fields.map((f) => f.path);
    for (const p of ['rule.frequency', 'rule.interval', 'rule.time', 'rule.timeZone', 'rule.startDate', 'rule.count']) expect(paths).toContain(p);
    const wrong = await api('POST', '/series', { rule: { frequency: 'daily', time: '09:00', timeZone: 'UTC', startDate: '2026-11-10', until: '2026-11-01', weekdays: ['MO'] }, posts: [entry(sky)] });
    expectError(wrong, 400, 'VALIDATION_FAILED');
    expect(wrong.json<{ fields: { path: string }[] }>().fields.map((f) => f.path).sort()).toEqual(['rule.until', 'rule.weekdays']);
    const past = await api('POST', '/series', { rule: { frequency: 'daily', time: '09:00', timeZone: 'UTC', startDate: '2020-01-01', count: 3 }, posts: [entry(sky)] });
    expectError(past, 400, 'VALIDATION_FAILED');
    expect(past.json<{ fields: { path: string }[] }>().fields[0]!.path).toBe('rule');
    const noChannel = await api('POST', '/series', { rule: rule(), posts: [entry('00000000-0000-0000-0000-000000000000')] });
    expectError(noChannel, 400, 'VALIDATION_FAILED');
    expect(noChannel.json<{ fields: { path: string }[] }>().fields[0]!.path).toBe('posts.0.integration.id');
  });

  it('answers 404 to ids that are not UUIDs, unknown ones and another organisation’s', async () => {
    for (const id of ['abc', '%00', '00000000-0000-0000-0000-000000000000']) {
      expectError(await api('GET', `/series/${id}`), 404, 'NOT_FOUND');
      expectError(await api('DELETE', `/series/${id}`), 404, 'NOT_FOUND');
      expectError(await api('PATCH', `/series/${id}`, { scope: 'following', fromPostId: id }), 404, 'NOT_FOUND');
    }
    const r = await createSeries({ rule: rule({ count: 1 }), posts: [entry(sky)] });
    expectError(await api('GET', `/series/${r.series.id}`, undefined, beta.apiKey), 404, 'NOT_FOUND');
    expect((await api('GET', '/series', undefined, beta.apiKey)).json()).toEqual({ series: [] });
  });

  it('inter: 7 with a Postiz-shaped body creates a daily series every 7 days and reads back', async () => {
    const body = {
      type: 'schedule',
      shortLink: false,
      date: '2026-10-11T10:15:00.000Z',
      tags: [],
      inter: 7,
      posts: [{ integration: { id: sky }, value: [{ content: 'Every week', id: '', image: [] }], group: '', settings: {} }],
    };
    const res = await api('POST', '/posts', body);
    expect(res.statusCode, res.body).toBe(201);
    const out = res.json<{ postId: string; integration: string; group: string }[]>();
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ integration: sky });
    const listed = await api('GET', `/posts?startDate=2026-10-11T00:00:00Z&endDate=2026-11-30T00:00:00Z`);
    const posts = listed.json<{ posts: { id: string; content: string; publishDate: string; inter: number | null; intervalInDays: number | null; seriesId: string | null }[] }>().posts.filter((p) => p.content === 'Every week');
    expect(posts[0]).toMatchObject({ id: out[0]!.postId, publishDate: '2026-10-11T10:15:00.000Z', inter: 7, intervalInDays: 7 });
    // 30 days ahead: Oct 11, 18, 25, Nov 1, 8
    expect(posts.map((p) => p.publishDate)).toEqual(['2026-10-11T10:15:00.000Z', '2026-10-18T10:15:00.000Z', '2026-10-25T10:15:00.000Z', '2026-11-01T10:15:00.000Z', '2026-11-08T10:15:00.000Z']);
    expect(new Set(posts.map((p) => p.seriesId)).size).toBe(1);

    for (const bad of [0, 366, 1.5, 'weekly', true]) {
      const r = await api('POST', '/posts', { ...body, inter: bad });
      expectError(r, 400, 'VALIDATION_FAILED');
      expect(r.json<{ fields: { path: string }[] }>().fields.map((f) => f.path)).toContain('inter');
    }
    // null and absent: a single post, as before
    const single = await api('POST', '/posts', { ...body, inter: null });
    expect(single.statusCode).toBe(201);
    const one = await api('GET', `/posts/${single.json<{ postId: string }[]>()[0]!.postId}`);
    expect(one.json()).toMatchObject({ seriesId: null });
  });

  it('two concurrent extends and a restart never create an occurrence twice', async () => {
    const r = await createSeries({ rule: { frequency: 'daily', interval: 1, time: '08:00', timeZone: 'Europe/Berlin', startDate: '2026-10-11' }, posts: [entry(sky), entry(sky2)], type: 'draft' });
    const before = await seriesRows(r.series.id);
    expect(before.length).toBe(2 * r.occurrences.length);
    clock.advance(10 * DAY);
    try {
      const series = t.deps.services.series;
      const [a, b] = await Promise.all([series.extend(r.series.id), series.extend(r.series.id)]);
      // ten more days: ten more occurrences, created by exactly one of the two
      expect(a + b).toBe(10);
      expect(Math.min(a, b)).toBe(0);
      // a restart: a new process extends the same series again
      await series.extendDue();
      const rows = await seriesRows(r.series.id);
      const keys = rows.map((x) => `${x.series_index}/${x.integration_id}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(rows.length).toBe(before.length + 20);
      // the backstop: a worker that read a stale next_index fails instead of creating duplicates
      await t.deps.database.sql.executeSql(`UPDATE post_series SET next_index = next_index - 2, materialized_through = now() - interval '1 day' WHERE id = $1`, [r.series.id]);
      await expect(series.extend(r.series.id)).rejects.toThrow();
      expect((await seriesRows(r.series.id)).length).toBe(rows.length);
    } finally {
      clock.advance(-10 * DAY);
    }
  });

  it('"this and following" ends the series before the occurrence and starts a new one there; an occurrence deleted alone is never re-created', async () => {
    const r = await createSeries({ rule: { frequency: 'daily', interval: 2, time: '09:00', timeZone: 'Europe/Berlin', startDate: '2026-10-11', count: 8 }, posts: [entry(sky, 'Old text')] });
    expect(r.occurrences).toHaveLength(8);
    // "this one": delete the second occurrence alone
    const second = r.occurrences[1]!.posts[0]!.postId;
    expect((await api('DELETE', `/posts/${second}`)).statusCode).toBe(200);
    await t.deps.services.series.extend(r.series.id);
    expect((await seriesRows(r.series.id)).filter((x) => x.series_index === 1 && x.deleted_at === null)).toHaveLength(0);

    const from = r.occurrences[4]!; // 2026-10-19
    const res = await api('PATCH', `/series/${r.series.id}`, { scope: 'following', fromPostId: from.posts[0]!.postId, rule: { frequency: 'daily', interval: 2, time: '10:00', timeZone: 'Europe/Berlin', startDate: '2026-10-19', count: 3 }, posts: [entry(sky, 'New text')] });
    expect(res.statusCode, res.body).toBe(200);
    const u = res.json<Created & { endedSeriesId: string; deleted: string[] }>();
    expect(u.endedSeriesId).toBe(r.series.id);
    expect(u.deleted.sort()).toEqual(r.occurrences.slice(4).map((o) => o.posts[0]!.postId).sort());
    expect(u.occurrences.map((o) => o.publishDate)).toEqual(['2026-10-19T08:00:00.000Z', '2026-10-21T08:00:00.000Z', '2026-10-23T08:00:00.000Z']);
    const live = (await seriesRows(r.series.id)).filter((x) => x.deleted_at === null).map((x) => x.series_index);
    expect(live).toEqual([0, 2, 3]);
    expect((await api('GET', `/series/${r.series.id}`)).json()).toMatchObject({ completed: true });
    expect((await api('GET', `/series/${u.series.id}`)).json()).toMatchObject({ previousSeriesId: r.series.id, counts: { created: 3 } });
    // the old series is not extended again
    expect(await t.deps.services.series.extend(r.series.id)).toBe(0);

    const bad = await api('PATCH', `/series/${u.series.id}`, { scope: 'following', fromPostId: r.occurrences[0]!.posts[0]!.postId });
    expectError(bad, 400, 'VALIDATION_FAILED');
    expect(bad.json<{ fields: { path: string }[] }>().fields[0]!.path).toBe('fromPostId');
  });

  it('deleting a series removes its unpublished occurrences and keeps published ones', async () => {
    const r = await createSeries({ rule: rule({ count: 3, startDate: '2026-10-13' }), posts: [entry(sky)] });
    const first = r.occurrences[0]!.posts[0]!.postId;
    // published (as the publisher records it)
    await t.deps.database.sql.executeSql(`UPDATE posts SET state = 'PUBLISHED', release_id = 'at://1', published_at = now(), publish_job_id = null WHERE id = $1`, [first]);
    const res = await api('DELETE', `/series/${r.series.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: r.series.id, kept: 1 });
    expect(res.json<{ deleted: string[] }>().deleted.sort()).toEqual(r.occurrences.slice(1).map((o) => o.posts[0]!.postId).sort());
    expect((await api('GET', `/posts/${first}`)).json()).toMatchObject({ state: 'PUBLISHED', seriesId: r.series.id });
    for (const o of r.occurrences.slice(1)) expectError(await api('GET', `/posts/${o.posts[0]!.postId}`), 404, 'NOT_FOUND');
    expectError(await api('GET', `/series/${r.series.id}`), 404, 'NOT_FOUND');
  });

  it('a sandbox key cannot make a series on a live channel (the field named, as POST /posts does), nor change one', async () => {
    const made = await t.deps.services.organizations.createApiKey(acme.id, 'sandbox', { sandbox: true });
    const res = await api('POST', '/series', { rule: rule(), posts: [entry(sky)] }, made.apiKey);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.json<{ fields: { path: string }[] }>().fields.map((f) => f.path)).toEqual(['posts.0.integration.id']);
    const r = await createSeries({ rule: rule({ count: 2 }), posts: [entry(sky)], type: 'draft' });
    // a series on a live channel is not the sandbox key's to see or change
    const patch = await api('PATCH', `/series/${r.series.id}`, { scope: 'following', fromPostId: r.occurrences[0]!.posts[0]!.postId, posts: [entry(sky)] }, made.apiKey);
    expectError(patch, 404, 'NOT_FOUND');
  });

  it('a series whose channel is gone is marked broken with the reason, and the organisation notified once', async () => {
    const gone = (await createChannel(t, acme, 'bluesky', { name: 'Short-lived' })).id;
    const r = await createSeries({ rule: { frequency: 'daily', interval: 1, time: '09:00', timeZone: 'UTC', startDate: '2026-10-11' }, posts: [entry(gone)] });
    await t.deps.database.sql.executeSql(`UPDATE integrations SET deleted_at = now() WHERE id = $1`, [gone]);
    clock.advance(3 * DAY);
    try {
      expect(await t.deps.services.series.extend(r.series.id)).toBe(0);
      await t.deps.services.series.extendDue();
      const d = (await api('GET', `/series/${r.series.id}`)).json<{ broken: { reason: string } | null }>();
      expect(d.broken?.reason).toMatch(/posts\.0\.integration\.id/);
      const { rows } = await t.deps.database.sql.executeSql(`SELECT content FROM notifications WHERE organization_id = $1 AND content LIKE 'A repeating post stopped%'`, [acme.id]);
      expect(rows).toHaveLength(1);
    } finally {
      clock.advance(-3 * DAY);
    }
  });
});
