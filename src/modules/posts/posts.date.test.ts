import { beforeAll, describe, expect, it } from 'vitest';
import { createChannel, eventsOf } from '../../../test/factories.js';
import { call, expectError, expectIsolated, manualClock, type TestOrg, useTestApp } from '../../../test/helpers.js';

interface Detail {
  id: string;
  state: string;
  publishDate: string;
  nextAttemptAt: string | null;
}

describe('PUT /posts/{id}/date (the calendar’s drag and drop)', () => {
  let channelId: string;
  const clock = manualClock();

  const create = async (type: 'draft' | 'schedule', date = '2031-07-01T09:00:00Z') => {
    const res = await call(t.app, acme.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type, date, shortLink: false, tags: [], posts: [{ integration: { id: channelId }, value: [{ content: 'first', image: [] }, { content: 'second', image: [], delay: 5 }], settings: {} }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ postId: string }[]>()[0]!.postId;
  };
  const detail = async (id: string) => (await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` })).json<Detail>();
  const move = (id: string, date: string, org: TestOrg = acme) => call(t.app, org.apiKey, { method: 'PUT', url: `/public/v1/posts/${id}/date`, payload: { date } });

  const { t, orgs: { acme, beta } } = useTestApp({ clock }, 'Acme', 'Beta');
  beforeAll(async () => {
    channelId = (await createChannel(t, acme, 'telegram')).id;
  });

  it('moves a queued post with its thread items and puts it back on the queue at the new time', async () => {
    const id = await create('schedule');
    // a later moment, so the outbox orders the move's event after the creation's (same clock tick: by random id)
    clock.advance(1000);
    const res = await move(id, '2031-07-03T14:30:00+02:00');
    expect(res.json()).toEqual({ id, state: 'QUEUE', publishDate: '2031-07-03T12:30:00.000Z' });
    const d = await detail(id);
    expect({ publishDate: d.publishDate, next: d.nextAttemptAt }).toEqual({ publishDate: '2031-07-03T12:30:00.000Z', next: '2031-07-03T12:30:00.000Z' });
    const rows = await t.deps.database.sql.executeSql(`SELECT publish_date FROM posts WHERE id = $1 OR parent_post_id = $1`, [id]);
    expect(rows.rows.map((r) => new Date(r.publish_date as string).toISOString())).toEqual(['2031-07-03T12:30:00.000Z', '2031-07-03T12:30:00.000Z']);
    const scheduled = (await eventsOf(t, acme.id)).filter((e) => e.type === 'post.scheduled');
    expect(scheduled.at(-1)!.payload).toMatchObject({ postId: id, dueAt: '2031-07-03T12:30:00.000Z' });
  });

  it('moves a draft without queueing it', async () => {
    const id = await create('draft');
    expect((await move(id, '2031-08-01T08:00:00Z')).json()).toEqual({ id, state: 'DRAFT', publishDate: '2031-08-01T08:00:00.000Z' });
    expect((await detail(id)).nextAttemptAt).toBeNull();
  });

  it('published posts do not move; bad dates are named; other organisations get 404', async () => {
    const id = await create('schedule');
    await t.deps.database.sql.executeSql(`UPDATE posts SET state = 'PUBLISHED' WHERE id = $1 OR parent_post_id = $1`, [id]);
    expect(expectError(await move(id, '2031-09-01T08:00:00Z'), 409, 'CONFLICT').message).toContain('published');
    const other = await create('draft');
    expect(expectError(await move(other, 'tomorrow'), 400, 'VALIDATION_FAILED').fields![0]!.path).toBe('date');
    await expectIsolated(t.app, { method: 'PUT', url: `/public/v1/posts/${other}/date`, payload: { date: '2031-09-02T08:00:00Z' } }, acme, beta);
    expectError(await move('not-a-uuid', '2031-09-02T08:00:00Z'), 404, 'NOT_FOUND');
  });
});
