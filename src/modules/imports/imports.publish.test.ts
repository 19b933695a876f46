import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { call } from '../../../test/helpers.js';
import { startTelegramApp, type TelegramApp } from '../../../test/telegram-app.js';

/**
 * Imported posts are written in bulk (`PostsService.createPostsMany`: multi-row inserts, one
 * statement for the publish jobs): each is then published by the real publisher like a post made
 * through POST /posts, thread items included, with its `post.scheduled` event.
 */
describe('imported posts are published', () => {
  let app: TelegramApp;
  beforeAll(async () => {
    app = await startTelegramApp();
  });
  afterAll(async () => app?.close());

  it('two imported posts, one a thread of two, each published once at its time, with its event', async () => {
    const { t, clock, org } = app;
    const at = (minutes: number) => new Date(clock.now() + minutes * 60_000).toISOString();
    const csv = ['group,channel,date,text,position', `a,Acme News,${at(10)},First imported,0`, `b,Acme News,${at(20)},Second imported,0`, `b,Acme News,${at(20)},Its reply,1`].join('\n');
    const res = await t.app.inject({ method: 'POST', url: '/public/v1/imports', headers: { authorization: org.apiKey, 'content-type': 'text/csv' }, payload: csv });
    expect(res.statusCode, res.body).toBe(201);
    const list = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts?startDate=${encodeURIComponent(at(0))}&endDate=${encodeURIComponent(at(60))}` });
    const roots = list.json<{ posts: { id: string; content: string; state: string }[] }>().posts;
    expect(roots.map((p) => [p.content, p.state]).sort()).toEqual([['First imported', 'QUEUE'], ['Second imported', 'QUEUE']].sort());
    const scheduled = (await eventsOf(t, org.id)).filter((e) => e.type === 'post.scheduled');
    expect(scheduled.map((e) => e.payload.postId).sort()).toEqual(roots.map((p) => p.id).sort());

    clock.advance(21 * 60_000);
    await releaseDueJobs(t, clock);
    for (const p of roots) {
      await waitFor(async () => (await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${p.id}` })).json<{ state: string }>().state === 'PUBLISHED', 15_000, `${p.content} published`);
    }
    // the reply is queued by the publisher once its post is out (in app time: released as due)
    const sends = () => app.sends().map((r) => JSON.stringify(r.body));
    await waitFor(async () => {
      await releaseDueJobs(t, clock);
      return sends().length >= 3;
    }, 15_000, 'the reply sent');
    const sent = sends();
    expect(sent).toHaveLength(3);
    expect(sent.filter((b) => b.includes('Its reply'))).toHaveLength(1);
  });
});
