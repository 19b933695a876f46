import { beforeAll, describe, expect, it } from 'vitest';
import { createChannel, eventsOf } from '../../../test/factories.js';
import { call, expectError, expectIsolated, manualClock, type TestOrg, useTestApp } from '../../../test/helpers.js';

interface Detail {
  id: string;
  state: string;
  publishDate: string;
  nextAttemptAt: string | null;
  thread: { id: string }[];
}

describe('PUT /posts/group/{group}/date (the calendar drags a multi-channel post as one)', () => {
  let telegramId: string;
  let skyId: string;
  const clock = manualClock();

  /** One request for two channels (Telegram with a thread item): one group. */
  const create = async (type: 'draft' | 'schedule', date = '2031-07-01T09:00:00Z') => {
    const res = await call(t.app, acme.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: {
        type,
        date,
        shortLink: false,
        tags: [],
        posts: [
          { integration: { id: telegramId }, value: [{ content: 'first', image: [] }, { content: 'second', image: [], delay: 5 }], settings: {} },
          { integration: { id: skyId }, value: [{ content: 'on bluesky', image: [] }] },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<{ postId: string; integration: string; group: string }[]>();
    return { group: created[0]!.group, ids: created.map((c) => c.postId), channels: created.map((c) => c.integration) };
  };
  const detail = async (id: string) => (await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` })).json<Detail>();
  const move = (group: string, payload: unknown, org: TestOrg = acme) =>
    call(t.app, org.apiKey, { method: 'PUT', url: `/public/v1/posts/group/${encodeURIComponent(group)}/date`, payload: payload as Record<string, unknown> });
  const datesOf = async (group: string) =>
    (await t.deps.database.sql.executeSql(`SELECT publish_date FROM posts WHERE "group" = $1 AND deleted_at IS NULL`, [group])).rows.map((r) => new Date(r.publish_date as string).toISOString());

  const { t, orgs: { acme, beta } } = useTestApp({ clock }, 'Acme', 'Beta');
  beforeAll(async () => {
    telegramId = (await createChannel(t, acme, 'telegram', { name: 'Acme News' })).id;
    skyId = (await createChannel(t, acme, 'bluesky', { name: 'Acme Sky' })).id;
  });

  it('moves every post of the group, thread items included, and queues each channel’s post again at the new time', async () => {
    const { group, ids, channels } = await create('schedule');
    clock.advance(1000);
    const res = await move(group, { date: '2031-07-03T14:30:00+02:00' });
    expect(res.statusCode, res.body).toBe(200);
    const at = '2031-07-03T12:30:00.000Z';
    expect(res.json()).toEqual({
      group,
      publishDate: at,
      posts: [
        { id: ids[0], integration: { id: channels[0] }, state: 'QUEUE', publishDate: at },
        { id: ids[1], integration: { id: channels[1] }, state: 'QUEUE', publishDate: at },
      ],
    });
    // three rows (two posts, one thread item), all at the new time
    expect(await datesOf(group)).toEqual([at, at, at]);
    for (const id of ids) expect(await detail(id)).toMatchObject({ publishDate: at, nextAttemptAt: at, state: 'QUEUE' });
    // the calendar lists the group where it moved, still one group
    const listed = (await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/posts/group/${group}` })).json<{ posts: { id: string; publishDate: string }[] }>();
    expect(listed.posts.map((p) => p.publishDate)).toEqual([at, at]);
    const scheduled = (await eventsOf(t, acme.id)).filter((e) => e.type === 'post.scheduled' && e.payload.dueAt === at);
    expect(scheduled.map((e) => e.payload.postId).sort()).toEqual([...ids].sort());
  });

  it('moves a group of drafts without queueing them, and back again (what Undo does)', async () => {
    const { group, ids } = await create('draft', '2031-08-01T08:00:00Z');
    expect((await move(group, { date: '2031-08-05T10:00:00Z' })).json<{ posts: { state: string }[] }>().posts.map((p) => p.state)).toEqual(['DRAFT', 'DRAFT']);
    expect(await datesOf(group)).toEqual(Array(3).fill('2031-08-05T10:00:00.000Z'));
    for (const id of ids) expect((await detail(id)).nextAttemptAt).toBeNull();
    expect((await move(group, { date: '2031-08-01T08:00:00Z' })).statusCode).toBe(200);
    expect(await datesOf(group)).toEqual(Array(3).fill('2031-08-01T08:00:00.000Z'));
  });

  it('a group with a published or failed post does not move at all; the answer names the channel', async () => {
    const { group, ids } = await create('schedule', '2031-09-01T08:00:00Z');
    await t.deps.database.sql.executeSql(`UPDATE posts SET state = 'PUBLISHED' WHERE id = $1`, [ids[1]]);
    const refused = expectError(await move(group, { date: '2031-09-02T08:00:00Z' }), 409, 'CONFLICT');
    expect(refused.message).toContain('Already published on Acme Sky');
    expect(await datesOf(group)).toEqual(Array(3).fill('2031-09-01T08:00:00.000Z'));
    expect((await detail(ids[0]!)).nextAttemptAt).toBe('2031-09-01T08:00:00.000Z');

    const failed = await create('schedule', '2031-09-03T08:00:00Z');
    await t.deps.database.sql.executeSql(`UPDATE posts SET state = 'ERROR' WHERE id = $1`, [failed.ids[0]]);
    expect(expectError(await move(failed.group, { date: '2031-09-04T08:00:00Z' }), 409, 'CONFLICT').message).toContain('Failed on Acme News');
    expect(await datesOf(failed.group)).toEqual(Array(3).fill('2031-09-03T08:00:00.000Z'));
  });

  it('bad input is a 400 naming date; unknown groups and another organisation’s group are 404', async () => {
    const { group } = await create('draft', '2031-10-01T08:00:00Z');
    for (const payload of [{ date: 'tomorrow' }, {}, { date: 42 }, { date: '2031-02-30T10:00:00Z' }]) {
      const err = expectError(await move(group, payload), 400, 'VALIDATION_FAILED');
      expect(err.fields!.map((f) => f.path), JSON.stringify(payload)).toEqual(['date']);
    }
    expect(await datesOf(group)).toEqual(Array(3).fill('2031-10-01T08:00:00.000Z'));
    await expectIsolated(t.app, { method: 'PUT', url: `/public/v1/posts/group/${group}/date`, payload: { date: '2031-10-02T08:00:00Z' } }, acme, beta);
    // beta's attempt moved nothing; acme's own move (the owner check) did
    expect(await datesOf(group)).toEqual(Array(3).fill('2031-10-02T08:00:00.000Z'));
    expect(expectError(await move('not-a-group', { date: '2031-10-02T08:00:00Z' }), 404, 'NOT_FOUND').message).toContain('Group');
    expectError(await move('a\u0000b', { date: '2031-10-02T08:00:00Z' }), 404, 'NOT_FOUND');
  });
});
