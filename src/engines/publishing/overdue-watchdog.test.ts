import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { events, posts } from '../../db/schema/posts.js';
import { realtimeManualClock, waitFor } from '../../../test/factories.js';
import { call, useTestApp } from '../../../test/helpers.js';

/**
 * The overdue-post watchdog (issue 29) on an injected clock: a post still queued more than
 * PUBLISH_OVERDUE_SECONDS after its time is reported once — a `post.overdue` event and a
 * notification — and a post published in time never is.
 */

const THRESHOLD_S = 300;
const TOKEN = 'metrics-token-0123456789';

describe('overdue-post watchdog', () => {
  // Real time at start (pg-boss compares job times with the database's clock), then moved by hand.
  const clock = realtimeManualClock();
  const { t, orgs } = useTestApp({ clock, startWorker: true, env: { PUBLISH_OVERDUE_SECONDS: String(THRESHOLD_S), METRICS_TOKEN: TOKEN } }, 'Acme');

  async function createPost(channel: string, body: { type: 'now' } | { type: 'schedule'; date: string }, content: string): Promise<string> {
    const res = await call(t.app, orgs.acme.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { ...body, shortLink: false, tags: [], posts: [{ integration: { id: channel }, value: [{ content, image: [] }] }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ postId: string }[]>()[0]!.postId;
  }

  const overdueEvents = () =>
    t.deps.database.db
      .select()
      .from(events)
      .where(and(eq(events.organizationId, orgs.acme.id), eq(events.type, 'post.overdue')));

  async function notifications(): Promise<string[]> {
    const res = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: '/public/v1/notifications' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ notifications?: { content: string }[] } | { content: string }[]>();
    return (Array.isArray(body) ? body : (body.notifications ?? [])).map((n) => n.content);
  }

  async function gauge(name: string): Promise<number | undefined> {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    const line = res.body.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.split(' ')[1]);
  }

  it('reports a post not published by T + threshold once (event and notification), never one published in time', async () => {
    const res = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: '/public/v1/sandbox/channels', payload: { identifier: 'telegram' } });
    expect(res.statusCode, res.body).toBe(201);
    const channel = res.json<{ id: string; name: string }>();

    // Published in time: publishes now, on the sandbox channel.
    const onTime = await createPost(channel.id, { type: 'now' }, 'On time');
    await waitFor(async () => (await t.deps.database.db.select().from(posts).where(eq(posts.id, onTime)))[0]?.state === 'PUBLISHED', 20_000, 'the on-time post to publish');

    // Due at T, ten minutes from now in the app's time; no publisher takes it within this test
    // (its job starts at T in the database's real time).
    const due = clock.now() + 600_000;
    const late = await createPost(channel.id, { type: 'schedule', date: new Date(due).toISOString() }, 'Stuck');

    // At T + threshold exactly: not yet overdue.
    clock.set(due + THRESHOLD_S * 1000);
    expect(await t.deps.overdueWatchdog.runOnce()).toBe(0);
    expect(await gauge('tidings_posts_due_unpublished')).toBe(1);
    expect(await gauge('tidings_posts_overdue')).toBe(0);

    // At T + threshold + ε: reported, once.
    clock.set(due + THRESHOLD_S * 1000 + 1000);
    expect(await gauge('tidings_posts_overdue')).toBe(1);
    expect(await t.deps.overdueWatchdog.runOnce()).toBe(1);
    const reported = await overdueEvents();
    expect(reported).toHaveLength(1);
    expect(reported[0]!.payload).toMatchObject({
      postId: late,
      rootPostId: late,
      position: 0,
      integration: { id: channel.id, identifier: 'telegram', name: channel.name, sandbox: true },
      publishDate: new Date(due).toISOString(),
      overdueSeconds: THRESHOLD_S + 1,
      attempts: 0,
      error: null,
      detectedAt: new Date(clock.now()).toISOString(),
    });
    const said = (await notifications()).filter((n) => n.includes('is not published yet'));
    expect(said).toEqual([`Your post on Telegram (${channel.name}) was due at ${new Date(due).toISOString()} and is not published yet (5 min late); no publisher has taken it yet`]);

    // The next rounds, later still: nothing new.
    clock.advance(60_000);
    expect(await t.deps.overdueWatchdog.runOnce()).toBe(0);
    expect(await overdueEvents()).toHaveLength(1);
    expect((await notifications()).filter((n) => n.includes('is not published yet'))).toHaveLength(1);
    expect(await gauge('tidings_overdue_posts_reported_total')).toBe(1);

    // The post published in time was never reported.
    expect(reported.map((e) => (e.payload as { postId: string }).postId)).not.toContain(onTime);
  });

  it('a rescheduled post is watched again for its new time', async () => {
    const [row] = await t.deps.database.db.select().from(posts).where(and(eq(posts.organizationId, orgs.acme.id), eq(posts.state, 'QUEUE')));
    expect(row).toBeDefined();
    const newDue = clock.now() + 60_000;
    const moved = await call(t.app, orgs.acme.apiKey, { method: 'PUT', url: `/public/v1/posts/${row!.id}/date`, payload: { date: new Date(newDue).toISOString() } });
    expect(moved.statusCode, moved.body).toBe(200);
    clock.set(newDue + THRESHOLD_S * 1000 + 1000);
    expect(await t.deps.overdueWatchdog.runOnce()).toBe(1);
    expect(await t.deps.overdueWatchdog.runOnce()).toBe(0);
    expect(await overdueEvents()).toHaveLength(2);
  });
});
