import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelegramSimulator, type TelegramSimulator } from '../../platforms/telegram/telegram.simulator.js';
import { eventsOf, realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, type TestApp, type TestOrg } from '../../../test/helpers.js';
import type { ManualClock } from '../../lib/clock.js';

/**
 * Imported posts are written in bulk (`PostsService.createPostsMany`: multi-row inserts, one
 * statement for the publish jobs): each is then published by the real publisher like a post made
 * through POST /posts, thread items included, with its `post.scheduled` event.
 */
const TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';
const BOT = { id: 123456, username: 'tidings_bot' };
const CHAT = { id: -1001234567890, title: 'Acme News', username: 'acmenews', admins: [BOT.id] };

describe('imported posts are published', () => {
  let tg: TelegramSimulator;
  let t: TestApp;
  let clock: ManualClock;
  let org: TestOrg;

  beforeAll(async () => {
    tg = await startTelegramSimulator();
    tg.addBot(TOKEN, BOT);
    tg.addChat(CHAT);
    clock = realtimeManualClock();
    t = await buildTestApp({ env: { PLATFORM_ORIGINS: `https://api.telegram.org=${tg.origin}` }, clock, startWorker: true });
    org = await t.createOrg('Acme');
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: '@acmenews' } });
    expect(res.statusCode, res.body).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await tg?.close();
  });

  it('two imported posts, one a thread of two, each published once at its time, with its event', async () => {
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
    const sends = () => tg.log.filter((r) => /\/sendMessage$/.test(r.path)).map((r) => JSON.stringify(r.body));
    await waitFor(async () => {
      await releaseDueJobs(t, clock);
      return sends().length >= 3;
    }, 15_000, 'the reply sent');
    const sent = sends();
    expect(sent).toHaveLength(3);
    expect(sent.filter((b) => b.includes('Its reply'))).toHaveLength(1);
  });
});
