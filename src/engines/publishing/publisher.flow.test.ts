import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../lib/clock.js';
import { BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO, startBlueskySimulator, type BlueskySimulator } from '../../platforms/bluesky/bluesky.simulator.js';
import { startTelegramSimulator, type TelegramSimulator } from '../../platforms/telegram/telegram.simulator.js';
import { advanceTime, createChannel, eventsOf, realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { EVENT_PAYLOAD_SCHEMAS } from '../../core/webhooks/event-schemas.js';
import { buildTestApp, call, type TestApp, type TestOrg } from '../../../test/helpers.js';

/**
 * End-to-end flows of the publisher (API.md §5 Posts, §6 Post states): posts created and moved
 * through the public API, published by the worker against the platform simulators.
 * Publisher tests use `realtimeManualClock()`: pg-boss compares job start times with the
 * database's real clock, so the app clock starts at real now (and stays there unless advanced).
 */

const TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';
const BOT = { id: 123456, username: 'tidings_bot' };
const CHAT = { id: -1001234567890, title: 'Acme News', username: 'acmenews', admins: [BOT.id] };
const CHAT_URL = 'https://t.me/acmenews';

interface PostThreadItem {
  id: string;
  content: string;
  delay: number;
  state: string;
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
  publishedAt: string | null;
}

interface PostDetail {
  id: string;
  content: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  group: string;
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
  publishDate: string;
  publishedAt: string | null;
  nextAttemptAt: string | null;
  attempts: number;
  thread: PostThreadItem[];
}

interface Ctx {
  t: TestApp;
  clock: ManualClock;
  tg: TelegramSimulator;
  org: TestOrg;
  /** the connected telegram channel (CHAT) */
  channel: string;
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A fresh telegram simulator and app (worker started unless told), an org and its telegram channel. */
async function setup(opts: { env?: Record<string, string>; startWorker?: boolean; extraOrigins?: string[] } = {}): Promise<Ctx> {
  const tg = await startTelegramSimulator();
  closers.push(() => tg.close());
  tg.addBot(TOKEN, BOT);
  tg.addChat(CHAT);
  const clock = realtimeManualClock();
  const origins = [`https://api.telegram.org=${tg.origin}`, ...(opts.extraOrigins ?? [])];
  const t = await buildTestApp({ env: { PLATFORM_ORIGINS: origins.join(','), ...opts.env }, clock, startWorker: opts.startWorker ?? true });
  closers.push(() => t.close());
  const org = await t.createOrg('Acme');
  const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: '@acmenews' } });
  expect(res.statusCode, res.body).toBe(201);
  return { t, clock, tg, org, channel: res.json<{ id: string }>().id };
}

function ok(res: LightMyRequestResponse, status = 200) {
  expect(res.statusCode, `${res.statusCode} ${res.body}`).toBe(status);
  return res;
}

async function createPosts(c: Ctx, body: Record<string, unknown>) {
  const res = ok(await call(c.t.app, c.org.apiKey, { method: 'POST', url: '/public/v1/posts', payload: body }), 201);
  return res.json<{ postId: string; integration: string; group: string }[]>();
}

async function getPost(c: Ctx, id: string) {
  return ok(await call(c.t.app, c.org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` })).json<PostDetail>();
}

async function setStatus(c: Ctx, id: string, status: 'draft' | 'schedule') {
  return ok(await call(c.t.app, c.org.apiKey, { method: 'PUT', url: `/public/v1/posts/${id}/status`, payload: { status } })).json<{ id: string; state: string }>();
}

async function notifications(c: Ctx) {
  return ok(await call(c.t.app, c.org.apiKey, { method: 'GET', url: '/public/v1/notifications' })).json<{ notifications: { content: string; link: string | null }[] }>()
    .notifications;
}

async function waitForState(c: Ctx, id: string, state: PostDetail['state'], timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const p = await getPost(c, id);
      return p.state === state ? p : undefined;
    },
    timeoutMs,
    `post ${id} to be ${state}`,
  );
}

/** Requests that would publish something (connect checks are getMe/getChat/getChatMember). */
const sends = (tg: TelegramSimulator) => tg.log.filter((r) => /\/send[A-Za-z]+$/.test(r.path));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('publisher flows through the API', () => {
  it('draft → schedule → published with the platform URL, notification and event, sent exactly once', async () => {
    const c = await setup();
    const due = inMs(1500);
    const [created] = await createPosts(c, {
      type: 'draft',
      date: due,
      posts: [{ integration: { id: c.channel }, value: [{ content: 'Hello from <b>Tidings</b>' }] }],
    });
    const id = created!.postId;
    expect((await getPost(c, id)).state).toBe('DRAFT');
    await sleep(200);
    expect(sends(c.tg)).toHaveLength(0);

    expect(await setStatus(c, id, 'schedule')).toEqual({ id, state: 'QUEUE' });
    const queued = await getPost(c, id);
    // (on a very slow machine it may already have gone; then there is no next attempt to show)
    if (queued.state === 'QUEUE') expect(queued.nextAttemptAt).toBe(new Date(due).toISOString());
    else expect(queued.state).toBe('PUBLISHED');

    const post = await waitForState(c, id, 'PUBLISHED');
    expect(post.releaseId).toBe('1');
    expect(post.releaseURL).toBe(`${CHAT_URL}/1`);
    expect(post.error).toBeNull();
    expect(post.publishedAt).not.toBeNull();
    expect(post.nextAttemptAt).toBeNull();
    expect(post.attempts).toBe(1);

    expect(sends(c.tg)).toHaveLength(1);
    expect(sends(c.tg)[0]!.path).toMatch(/\/sendMessage$/);
    expect(c.tg.messages).toEqual([expect.objectContaining({ chatId: CHAT.id, messageId: 1, text: 'Hello from <b>Tidings</b>' })]);

    const notes = await notifications(c);
    const note = notes.find((n) => n.content.includes('published'));
    expect(note?.content).toMatch(new RegExp(`published .* at ${CHAT_URL}/1$`));
    expect(note?.link).toBe(`${CHAT_URL}/1`);

    const events = await eventsOf(c.t, c.org.id);
    const pub = events.filter((e) => e.type === 'post.published');
    expect(pub).toHaveLength(1);
    expect(pub[0]!.payload).toMatchObject({ postId: id, rootPostId: id, releaseId: '1', releaseURL: `${CHAT_URL}/1`, integration: { id: c.channel, identifier: 'telegram' } });

    // Nothing more is ever sent for it.
    await sleep(300);
    expect(sends(c.tg)).toHaveLength(1);
  });

  it('a scheduled post is not sent before its time and is sent once it comes (lag recorded, not asserted)', async () => {
    const c = await setup();
    const dueMs = Date.now() + 2000;
    const [created] = await createPosts(c, {
      type: 'schedule',
      date: new Date(dueMs).toISOString(),
      posts: [{ integration: { id: c.channel }, value: [{ content: 'On time' }] }],
    });
    const id = created!.postId;

    // One second before the due time (the checks below assume the machine got here before it).
    await sleep(Math.max(0, dueMs - 1000 - Date.now()));
    expect(sends(c.tg)).toHaveLength(0);
    expect((await getPost(c, id)).state).toBe('QUEUE');

    // Watch the simulator closely to observe when the request arrives (an observation only).
    let arrivedAt: number | undefined;
    while (arrivedAt === undefined && Date.now() < dueMs + 15_000) {
      if (sends(c.tg).length > 0) arrivedAt = Date.now();
      else await sleep(5);
    }
    const post = await waitForState(c, id, 'PUBLISHED');
    expect(post.releaseURL).toBe(`${CHAT_URL}/1`);
    expect(sends(c.tg)).toHaveLength(1);
    expect(arrivedAt).toBeDefined();
    console.info(`[publisher.flow] publish lag (${process.env.TEST_DB}): request reached the simulator ${arrivedAt! - dueMs} ms after the due time`);
  });

  it('a thread publishes item by item, each `delay` minutes after the previous, as replies', async () => {
    const c = await setup();
    const [created] = await createPosts(c, {
      type: 'now',
      posts: [
        {
          integration: { id: c.channel },
          value: [{ content: 'first' }, { content: 'second', delay: 5 }, { content: 'third', delay: 0 }],
        },
      ],
    });
    const id = created!.postId;

    const afterFirst = await waitForState(c, id, 'PUBLISHED');
    expect(afterFirst.releaseId).toBe('1');
    expect(afterFirst.thread.map((i) => i.state)).toEqual(['QUEUE', 'QUEUE']);
    expect(afterFirst.nextAttemptAt).toBe(new Date(Date.parse(afterFirst.publishedAt!) + 5 * 60_000).toISOString());
    expect(afterFirst.thread[0]!.releaseId).toBeNull();
    await sleep(300);
    expect(sends(c.tg)).toHaveLength(1);

    await advanceTime(c.t, c.clock, 5 * 60_000);
    const afterSecond = await waitFor(
      async () => {
        const p = await getPost(c, id);
        return p.thread[0]!.state === 'PUBLISHED' ? p : undefined;
      },
      15_000,
      'the second item to publish',
    );
    expect(afterSecond.thread[0]).toMatchObject({ content: 'second', releaseId: '2', releaseURL: `${CHAT_URL}/2` });
    expect(afterSecond.thread[0]!.publishedAt).toBe(new Date(c.clock.now()).toISOString());
    // The third (delay 0) is queued for the instant the second published, by the app clock.
    expect(afterSecond.thread[1]!.state).toBe('QUEUE');
    expect(afterSecond.nextAttemptAt).toBe(afterSecond.thread[0]!.publishedAt);

    // The clock is now 5 min ahead of real time: the job of the third item carries that offset.
    await releaseDueJobs(c.t, c.clock);
    const done = await waitFor(
      async () => {
        const p = await getPost(c, id);
        return p.thread[1]!.state === 'PUBLISHED' ? p : undefined;
      },
      15_000,
      'the third item to publish',
    );
    expect(done.thread[1]).toMatchObject({ content: 'third', releaseId: '3', releaseURL: `${CHAT_URL}/3`, error: null });
    expect(done.nextAttemptAt).toBeNull();

    expect(sends(c.tg)).toHaveLength(3);
    // Telegram replies go to the previous message (reply_parameters.message_id).
    expect(c.tg.messages.map((m) => ({ id: m.messageId, text: m.text, replyTo: m.replyTo }))).toEqual([
      { id: 1, text: 'first', replyTo: undefined },
      { id: 2, text: 'second', replyTo: 1 },
      { id: 3, text: 'third', replyTo: 2 },
    ]);

    const events = (await eventsOf(c.t, c.org.id)).filter((e) => e.type === 'post.published');
    // (the manual clock stands still, so the order of events with the same created_at is not asserted)
    const byPosition = events.map((e) => [e.payload.position, e.payload.releaseId, e.payload.rootPostId] as [number, string, string]).sort((a, b) => a[0] - b[0]);
    expect(byPosition).toEqual([
      [0, '1', id],
      [1, '2', id],
      [2, '3', id],
    ]);
    // One notification for the post, not one per thread item.
    expect((await notifications(c)).filter((n) => n.content.includes('published'))).toHaveLength(1);
  });

  it('a queued post pulled back to draft, or deleted, is never sent; an edited date moves it', async () => {
    const c = await setup();
    const date = new Date(c.clock.now() + 10 * 60_000).toISOString();
    const post = (content: string) => ({ type: 'schedule', date, posts: [{ integration: { id: c.channel }, value: [{ content }] }] });
    const [pulled] = await createPosts(c, post('pulled back'));
    const [deleted] = await createPosts(c, post('deleted'));
    const [edited] = await createPosts(c, post('edited'));
    const [control] = await createPosts(c, post('control'));

    expect(await setStatus(c, pulled!.postId, 'draft')).toEqual({ id: pulled!.postId, state: 'DRAFT' });
    expect((await getPost(c, pulled!.postId)).nextAttemptAt).toBeNull();
    ok(await call(c.t.app, c.org.apiKey, { method: 'DELETE', url: `/public/v1/posts/${deleted!.postId}` }));
    const later = new Date(c.clock.now() + 20 * 60_000).toISOString();
    const [edit] = await createPosts(c, {
      type: 'schedule',
      date: later,
      posts: [{ integration: { id: c.channel }, group: edited!.group, value: [{ id: edited!.postId, content: 'edited' }] }],
    });
    expect(edit!.postId).toBe(edited!.postId);
    expect((await getPost(c, edited!.postId)).nextAttemptAt).toBe(later);

    // Past the old time: only the control post goes.
    await advanceTime(c.t, c.clock, 10 * 60_000 + 1000);
    await waitForState(c, control!.postId, 'PUBLISHED');
    await sleep(500);
    expect(c.tg.messages.map((m) => m.text)).toEqual(['control']);
    expect((await getPost(c, pulled!.postId)).state).toBe('DRAFT');
    expect((await getPost(c, edited!.postId)).state).toBe('QUEUE');
    expectError404(await call(c.t.app, c.org.apiKey, { method: 'GET', url: `/public/v1/posts/${deleted!.postId}` }));

    // At the new time the edited one goes, once.
    await advanceTime(c.t, c.clock, 10 * 60_000);
    const sent = await waitForState(c, edited!.postId, 'PUBLISHED');
    expect(sent.releaseURL).toBe(`${CHAT_URL}/2`);
    await sleep(300);
    expect(c.tg.messages.map((m) => m.text)).toEqual(['control', 'edited']);
    expect((await getPost(c, pulled!.postId)).state).toBe('DRAFT');

    // The draft scheduled again after its date has passed publishes now (its job is due by the
    // app clock, which is 20 min ahead of real time here).
    expect(await setStatus(c, pulled!.postId, 'schedule')).toEqual({ id: pulled!.postId, state: 'QUEUE' });
    expect((await getPost(c, pulled!.postId)).nextAttemptAt).toBe(new Date(c.clock.now()).toISOString());
    await releaseDueJobs(c.t, c.clock);
    expect((await waitForState(c, pulled!.postId, 'PUBLISHED')).releaseURL).toBe(`${CHAT_URL}/3`);
    expect(c.tg.messages.map((m) => m.text)).toEqual(['control', 'edited', 'pulled back']);
  });

  it('catch-up: a post dated in the past publishes at once; posts that came due while no worker ran publish when it starts', async () => {
    const c = await setup({ startWorker: false });
    const post = (date: string, content: string) => ({ type: 'schedule', date, posts: [{ integration: { id: c.channel }, value: [{ content }] }] });
    const [past] = await createPosts(c, post(new Date(c.clock.now() - 10 * 60_000).toISOString(), 'dated ten minutes ago'));
    const [soon] = await createPosts(c, post(inMs(1000), 'due while the worker was down'));
    // The service is "down" for 10 minutes (within the default PUBLISH_MAX_LATENESS of 24 h).
    await advanceTime(c.t, c.clock, 10 * 60_000);
    expect(sends(c.tg)).toHaveLength(0);
    await c.t.deps.startWorker();
    const a = await waitForState(c, past!.postId, 'PUBLISHED');
    const b = await waitForState(c, soon!.postId, 'PUBLISHED');
    expect(new Set([a.releaseURL, b.releaseURL])).toEqual(new Set([`${CHAT_URL}/1`, `${CHAT_URL}/2`]));
    expect(sends(c.tg)).toHaveLength(2);

    // With the worker running, a post dated in the past goes at once.
    const [now] = await createPosts(c, post(new Date(c.clock.now() - 10 * 60_000).toISOString(), 'dated in the past, worker up'));
    await releaseDueJobs(c.t, c.clock);
    expect((await waitForState(c, now!.postId, 'PUBLISHED')).releaseURL).toBe(`${CHAT_URL}/3`);
    expect(sends(c.tg)).toHaveLength(3);
  });

  it('a post due longer ago than PUBLISH_MAX_LATENESS when the worker starts ends ERROR "missed", notified, not sent', async () => {
    const c = await setup({ env: { PUBLISH_MAX_LATENESS: '1m' }, startWorker: false });
    const [created] = await createPosts(c, {
      type: 'schedule',
      date: inMs(1000),
      posts: [{ integration: { id: c.channel }, value: [{ content: 'too late' }] }],
    });
    await advanceTime(c.t, c.clock, 5 * 60_000);
    await c.t.deps.startWorker();
    const post = await waitForState(c, created!.postId, 'ERROR');
    expect(post.error).toContain('missed');
    expect(post.releaseId).toBeNull();
    expect(post.nextAttemptAt).toBeNull();
    expect(sends(c.tg)).toHaveLength(0);
    const notes = await notifications(c);
    expect(notes.some((n) => n.content.includes('failed') && n.content.includes('missed'))).toBe(true);
    const failed = (await eventsOf(c.t, c.org.id)).filter((e) => e.type === 'post.failed');
    expect(failed).toHaveLength(1);
    expect(String(failed[0]!.payload.error)).toContain('missed');
  });

  it('several channels of one request publish independently; a platform whose app this server lacks ends ERROR plainly', async () => {
    const sky: BlueskySimulator = await startBlueskySimulator();
    closers.push(() => sky.close());
    sky.addAccount({ handle: 'acme.bsky.social', did: 'did:plc:acme123', password: 'app-pass-1234', displayName: 'Acme on Bluesky' });
    const c = await setup({ extraOrigins: [BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO].map((o) => `${o}=${sky.origin}`) });
    const bsky = ok(
      await call(c.t.app, c.org.apiKey, { method: 'POST', url: '/public/v1/social/bluesky', payload: { identifier: 'acme.bsky.social', password: 'app-pass-1234' } }),
      201,
    ).json<{ id: string }>().id;
    const mewe = await createChannel(c.t, c.org, 'mewe', { name: 'Acme MeWe' });

    const created = await createPosts(c, {
      type: 'now',
      posts: [
        { integration: { id: c.channel }, value: [{ content: 'everywhere' }] },
        { integration: { id: mewe.id }, value: [{ content: 'everywhere' }], settings: { postType: 'timeline' } },
        { integration: { id: bsky }, value: [{ content: 'everywhere' }] },
      ],
    });
    expect(new Set(created.map((p) => p.group)).size).toBe(1);
    const [onTelegram, onMewe, onBluesky] = created.map((p) => p.postId) as [string, string, string];

    const tgPost = await waitForState(c, onTelegram, 'PUBLISHED');
    expect(tgPost.releaseURL).toBe(`${CHAT_URL}/1`);
    const skyPost = await waitForState(c, onBluesky, 'PUBLISHED');
    expect(skyPost.releaseId).toMatch(/^at:\/\/did:plc:acme123\/app\.bsky\.feed\.post\//);
    expect(skyPost.releaseURL).toMatch(/^https:\/\/bsky\.app\/profile\/acme\.bsky\.social\/post\//);
    expect(sky.records.map((r) => r.text)).toEqual(['everywhere']);
    const mewePost = await waitForState(c, onMewe, 'ERROR');
    // MeWe calls need the deployment's app id and key (MEWE_CLIENT_ID/SECRET), which this server lacks.
    expect(mewePost.error).toMatch(/not available on this server/);
    expect(mewePost.error).toContain('MEWE_CLIENT_ID');

    expect(sends(c.tg)).toHaveLength(1);
    const notes = await notifications(c);
    expect(notes.filter((n) => n.content.includes('has been published'))).toHaveLength(2);
    expect(notes.some((n) => n.content.includes('MeWe') && n.content.includes('not available'))).toBe(true);
    const events = await eventsOf(c.t, c.org.id);
    expect(events.filter((e) => e.type === 'post.published')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'post.failed').map((e) => e.payload.postId)).toEqual([onMewe]);
    // What is written is what the OpenAPI event catalogue documents.
    for (const e of events.filter((x) => x.type === 'post.published' || x.type === 'post.failed')) EVENT_PAYLOAD_SCHEMAS[e.type as 'post.published' | 'post.failed'].strict().parse(e.payload);
  });

  it('/readyz answers 200 while the publisher loop beats and 503 once it has stopped', async () => {
    const c = await setup({ env: { READY_MAX_HEARTBEAT_AGE_SECONDS: '1', WORKER_HEARTBEAT_SECONDS: '1' } });
    const ready = await c.t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ ready: true, checks: { database: { ok: true }, publisher: { ok: true } } });

    // Time passes (app clock): the running loop beats again and stays ready.
    c.clock.advance(5000);
    await waitFor(async () => (await c.t.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200, 10_000, 'a fresh heartbeat');

    await c.t.deps.dispatcher!.stop();
    c.clock.advance(5000);
    const stale = await c.t.app.inject({ method: 'GET', url: '/readyz' });
    expect(stale.statusCode).toBe(503);
    expect(stale.json<{ ready: boolean; checks: { publisher: { ok: boolean; error: string } } }>()).toMatchObject({
      ready: false,
      checks: { publisher: { ok: false, error: expect.stringMatching(/^last publisher heartbeat \d+ s ago$/) } },
    });
  });
});

function expectError404(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(404);
}
