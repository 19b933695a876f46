import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import type { ManualClock } from '../../lib/clock.js';
import { startMastodonSimulator, type MastodonSimulator } from '../../platforms/mastodon/mastodon.simulator.js';
import { startTelegramSimulator, type TelegramSimulator } from '../../platforms/telegram/telegram.simulator.js';
import { startXSimulator, type XSimulator } from '../../platforms/x/x.simulator.js';
import { advanceTime, eventsOf, realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { EVENT_PAYLOAD_SCHEMAS } from '../../core/webhooks/event-schemas.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { X_APP } from '../../../test/oauth-apps.js';
import type { Simulator, SimulatorRequest } from '../../../test/simulators/harness.js';
import { PUBLISH_QUEUE } from './publish-queue.js';

/** The events the publisher and the channel changes it makes write (not the connect and scheduling ones). */
const OUTCOME_EVENTS = new Set(['post.published', 'post.failed', 'integration.refresh_needed', 'integration.disconnected']);
const outcomeEvents = async (t: Parameters<typeof eventsOf>[0], organizationId: string) => (await eventsOf(t, organizationId)).filter((e) => OUTCOME_EVENTS.has(e.type));

/**
 * The failure policy of the publisher (API.md §6), end to end: posts created through
 * `POST /public/v1/posts`, published by the worker against the platform simulators, observed
 * through `GET /posts/{id}`, `GET /notifications`, `GET /integrations`, the events outbox and the
 * simulators' own request logs.
 */

const PUBLIC_URL = 'https://tidings.example';
const MASTODON = 'https://mastodon.example';
const MINUTE = 60_000;
const X_SETTINGS = { who_can_reply_post: 'everyone' };

interface PostView {
  id: string;
  state: 'QUEUE' | 'PUBLISHED' | 'ERROR' | 'DRAFT';
  error: string | null;
  releaseId: string | null;
  releaseURL: string | null;
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
}

let telegram: TelegramSimulator;
let mastodon: MastodonSimulator;
let x: XSimulator;
let botSeq = 0;

beforeAll(async () => {
  telegram = await startTelegramSimulator();
  mastodon = await startMastodonSimulator({ publicUrl: MASTODON, mediaProcessingPolls: 0 });
  x = await startXSimulator();
  x.addClient(X_APP);
});

afterAll(async () => {
  await Promise.all([telegram, mastodon, x].map((s) => s?.close()));
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PUBLIC_URL,
    PLATFORM_ORIGINS: [`https://api.telegram.org=${telegram.origin}`, `${MASTODON}=${mastodon.origin}`, `https://x.com=${x.origin}`, `https://api.x.com=${x.origin}`].join(','),
    X_CLIENT_ID: X_APP.clientId,
    X_CLIENT_SECRET: X_APP.clientSecret,
    ...extra,
  };
}

/**
 * A fresh app with its worker running, on its own database, for each test: its manual clock starts
 * at real time, as pg-boss compares job start times with the database's real clock (a clock moved
 * forward by one test would put the next test's "now" jobs in the future).
 */
function useApp(extraEnv: Record<string, string>) {
  const ctx = {} as { t: TestApp; clock: ManualClock };
  beforeEach(async () => {
    ctx.clock = realtimeManualClock();
    ctx.t = await buildTestApp({ env: env(extraEnv), clock: ctx.clock, startWorker: true });
  });
  afterEach(async () => {
    await ctx.t?.close();
  });
  return ctx;
}

// ---------------------------------------------------------------------------------------------
// Helpers on the app

async function getPost(t: TestApp, org: TestOrg, id: string): Promise<PostView> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostView>();
}

async function createPost(t: TestApp, org: TestOrg, integrationId: string, content: string, opts: { date?: Date; settings?: Record<string, unknown> } = {}): Promise<string> {
  const res = await call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: {
      type: opts.date ? 'schedule' : 'now',
      ...(opts.date ? { date: opts.date.toISOString() } : {}),
      shortLink: false,
      tags: [],
      posts: [{ integration: { id: integrationId }, value: [{ content, image: [] }], ...(opts.settings ? { settings: opts.settings } : {}) }],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ postId: string }[]>()[0]!.postId;
}

/** Waits until the post satisfies `check` (as GET /posts/{id} shows it) and returns it. */
async function postWhen(t: TestApp, org: TestOrg, id: string, what: string, check: (p: PostView) => boolean): Promise<PostView> {
  let last: PostView | undefined;
  try {
    return await waitFor(
      async () => {
        last = await getPost(t, org, id);
        return check(last) ? last : undefined;
      },
      20_000,
      `post ${what}`,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: e });
  }
}

const settled = (t: TestApp, org: TestOrg, id: string) => postWhen(t, org, id, 'PUBLISHED or ERROR', (p) => p.state === 'PUBLISHED' || p.state === 'ERROR');

/** A retry is scheduled: still queued, no attempt in flight, the next one in the future. */
async function retryScheduled(t: TestApp, org: TestOrg, id: string, attempts: number): Promise<PostView> {
  return postWhen(t, org, id, `queued for a retry after attempt ${attempts}`, (p) => {
    if (p.state !== 'QUEUE' || p.attempts !== attempts || p.error === null || p.nextAttemptAt === null) return false;
    return Date.parse(p.nextAttemptAt) > t.clock.now();
  });
}

async function notifications(t: TestApp, org: TestOrg): Promise<string[]> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/notifications' });
  expect(res.statusCode).toBe(200);
  return res.json<{ notifications: { content: string }[] }>().notifications.map((n) => n.content);
}

/** Publish jobs of the post not finished yet (created, retry or active). */
async function openJobs(t: TestApp, postId: string): Promise<number> {
  const { rows } = await t.deps.database.sql.executeSql(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'postId' = $2 AND state < 'completed'`, [PUBLISH_QUEUE, postId]);
  return Number((rows[0] as { n: number }).n);
}

async function integrationRow(t: TestApp, id: string) {
  const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, id));
  return row!;
}

// ---------------------------------------------------------------------------------------------
// Connecting channels the way users do

interface TelegramChannel {
  id: string;
  name: string;
  token: string;
  chatId: number;
  /** the simulator's requests made with this channel's bot */
  sends(): SimulatorRequest[];
  messages(): number;
}

/** A bot of its own and a chat of its own (so that injections and logs are per channel). */
async function connectTelegram(t: TestApp, org: TestOrg, name: string): Promise<TelegramChannel> {
  const n = ++botSeq;
  const botId = 700_000 + n;
  const token = `${botId}:AAbbCCddEEffGGhhIIjjKKllMMnnOO${String(n).padStart(4, '0')}`;
  const chatId = -1_001_000_000_000 - n;
  telegram.addBot(token, { id: botId, username: `bot${n}` });
  telegram.addChat({ id: chatId, title: name, admins: [botId] });
  const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: token, chatId: String(chatId) } });
  expect(res.statusCode, res.body).toBe(201);
  const prefix = `/bot${token}/send`;
  return {
    id: res.json<{ id: string }>().id,
    name,
    token,
    chatId,
    sends: () => telegram.log.filter((r) => r.path.startsWith(prefix)),
    messages: () => telegram.messages.filter((m) => m.chatId === chatId).length,
  };
}

/** What the user's browser does after GET /social/{id}: approve at the platform, come back to the callback. */
async function approveAndReturn(t: TestApp, identifier: string, url: string) {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status, await res.clone().text()).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_URL}/integrations/social/${identifier}/callback`);
  const page = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  expect(page.statusCode, page.body).toBe(200);
}

async function listed(t: TestApp, org: TestOrg) {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
  expect(res.statusCode).toBe(200);
  return res.json<{ id: string; identifier: string; name: string; refreshNeeded: boolean }[]>();
}

async function connectMastodon(t: TestApp, org: TestOrg, username: string) {
  const account = mastodon.addAccount({ username, display_name: `Mastodon ${username}` });
  mastodon.signIn(account.id);
  const begun = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/social/mastodon?instanceUrl=${encodeURIComponent(MASTODON)}` });
  expect(begun.statusCode, begun.body).toBe(200);
  await approveAndReturn(t, 'mastodon', begun.json<{ url: string }>().url);
  const channel = (await listed(t, org)).find((i) => i.identifier === 'mastodon' && i.name === `Mastodon ${username}`)!;
  return { id: channel.id, account };
}

async function connectX(t: TestApp, org: TestOrg, user: { id: string; name: string; username: string }) {
  x.addUser(user);
  x.approveAs(user.id);
  const begun = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/x' });
  expect(begun.statusCode, begun.body).toBe(200);
  await approveAndReturn(t, 'x', begun.json<{ url: string }>().url);
  const channel = (await listed(t, org)).find((i) => i.identifier === 'x' && i.name === user.name)!;
  return { id: channel.id };
}

const isPost = (r: SimulatorRequest, path: RegExp) => r.method === 'POST' && path.test(r.path);
const TWEETS = /^\/2\/tweets$/;
const TOKEN = /^\/2\/oauth2\/token$/;
const STATUSES = /^\/api\/v1\/statuses$/;

// ---------------------------------------------------------------------------------------------

describe('publisher failure policy (API.md §6)', () => {
  // The first retry normally comes after 1–2 s; these tests look at a post while it waits for its
  // retry, so they make that wait long (and move the clock) instead of racing it.
  const ctx = useApp({ PUBLISH_MAX_ATTEMPTS: '2', PUBLISH_RETRY_FIRST_SECONDS: '100' });

  it('a 5xx is retried with backoff: QUEUE with the failed attempt described, then PUBLISHED on the second request', async () => {
    const { t, clock } = ctx;
    const org = await t.createOrg('Retry');
    const ch = await connectTelegram(t, org, 'Retry News');
    telegram.inject({ path: new RegExp(`^/bot${ch.token}/send`), status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } });

    const id = await createPost(t, org, ch.id, '<p>Retried after a bad gateway</p>');
    const queued = await retryScheduled(t, org, id, 1);
    expect(queued.error).toMatch(/^Attempt 1 failed \(Bad Gateway\); retrying at /);
    expect(Date.parse(queued.nextAttemptAt!)).toBeGreaterThan(clock.now());
    expect(ch.sends()).toHaveLength(1);
    expect(ch.messages()).toBe(0);

    await advanceTime(t, clock, 10 * MINUTE);
    const done = await settled(t, org, id);
    expect(done).toMatchObject({ state: 'PUBLISHED', error: null, attempts: 2, nextAttemptAt: null });
    expect(done.releaseURL).toMatch(/^https:\/\/t\.me\//);
    // Two requests reached the platform, one message exists: the first request was the one that failed.
    expect(ch.sends()).toHaveLength(2);
    expect(ch.messages()).toBe(1);
    const events = (await outcomeEvents(t, org.id)).map((e) => e.type);
    expect(events).toEqual(['post.published']);
    expect((await notifications(t, org)).filter((n) => n.startsWith('Your post has been published on Telegram (Retry News)'))).toHaveLength(1);
  });

  it('one blip costs seconds: the first retry waits PUBLISH_RETRY_FIRST_SECONDS (1 s by default) to twice that, not the 30 s base; a Retry-After is waited out in full', async () => {
    const { t, clock } = ctx;
    const org = await t.createOrg('Blip');
    const ch = await connectTelegram(t, org, 'Blip News');
    telegram.inject({ path: new RegExp(`^/bot${ch.token}/send`), status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } });
    const id = await createPost(t, org, ch.id, '<p>A blip only</p>');
    const queued = await retryScheduled(t, org, id, 1);
    const wait = Date.parse(queued.nextAttemptAt!) - Date.parse(queued.lastAttemptAt!);
    // (100 s in this test, so the wait can be observed; the base of 30 s would give 15–30 s)
    expect(wait).toBeGreaterThanOrEqual(100_000);
    expect(wait).toBeLessThanOrEqual(200_000);
    await advanceTime(t, clock, 200_000);
    expect(await settled(t, org, id)).toMatchObject({ state: 'PUBLISHED', attempts: 2 });
    expect(ch.messages()).toBe(1);

    // A 503 that says when to come back is not retried sooner.
    telegram.inject({ path: new RegExp(`^/bot${ch.token}/send`), status: 503, headers: { 'retry-after': '900' }, body: { ok: false, error_code: 503, description: 'Service Unavailable' } });
    const later = await createPost(t, org, ch.id, '<p>After the outage</p>');
    await releaseDueJobs(t, clock);
    const told = await retryScheduled(t, org, later, 1);
    expect(Date.parse(told.nextAttemptAt!) - Date.parse(told.lastAttemptAt!)).toBe(900_000);
    clock.advance(900_000);
    await releaseDueJobs(t, clock);
    expect(await settled(t, org, later)).toMatchObject({ state: 'PUBLISHED', attempts: 2 });
  });

  it('after PUBLISH_MAX_ATTEMPTS transient failures the post ends ERROR with a readable message and a post.failed event', async () => {
    const { t, clock } = ctx;
    const org = await t.createOrg('Exhausted');
    const ch = await connectTelegram(t, org, 'Down News');
    telegram.inject({ path: new RegExp(`^/bot${ch.token}/send`), status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' }, times: 2 });

    const id = await createPost(t, org, ch.id, '<p>Never gets through</p>');
    await retryScheduled(t, org, id, 1);
    await advanceTime(t, clock, 10 * MINUTE);
    const failed = await settled(t, org, id);
    expect(failed.state).toBe('ERROR');
    expect(failed.error).toBe('Telegram (Down News) could not be reached after 2 attempts: Bad Gateway');
    expect(failed.nextAttemptAt).toBeNull();
    expect(ch.sends()).toHaveLength(2);
    expect(ch.messages()).toBe(0);

    const events = await outcomeEvents(t, org.id);
    expect(events.map((e) => e.type)).toEqual(['post.failed']);
    expect(events[0]!.payload).toMatchObject({ postId: id, error: failed.error, integration: { id: ch.id, identifier: 'telegram' } });
    expect(await notifications(t, org)).toContain(`Your post on Telegram (Down News) failed: ${failed.error}`);
    expect(await openJobs(t, id)).toBe(0);
  });

  it('a 429 is honoured: the channel waits Retry-After, other channels do not, and both waiting posts publish afterwards', async () => {
    const { t, clock } = ctx;
    const org = await t.createOrg('Slow down');
    const limited = await connectTelegram(t, org, 'Limited News');
    const other = await connectTelegram(t, org, 'Other News');
    // Telegram's own shape: the wait is in `parameters.retry_after` (and the Retry-After header).
    telegram.inject({
      path: new RegExp(`^/bot${limited.token}/send`),
      status: 429,
      headers: { 'retry-after': '120' },
      body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 120', parameters: { retry_after: 120 } },
    });

    const first = await createPost(t, org, limited.id, '<p>First on the limited channel</p>');
    const waiting = await retryScheduled(t, org, first, 1);
    expect(waiting.error).toContain('asked to slow down');
    expect(Math.abs(Date.parse(waiting.nextAttemptAt!) - (clock.now() + 120_000))).toBeLessThan(5_000);
    // The channel is blocked for exactly the wait; the post retries up to 5 s after (jitter, so
    // channels slowed down together do not all come back at once).
    const blockedUntil = (await integrationRow(t, limited.id)).publishBlockedUntil!;
    expect(blockedUntil.getTime() - clock.now()).toBe(120_000);
    expect(Date.parse(waiting.nextAttemptAt!) - blockedUntil.getTime()).toBeGreaterThanOrEqual(0);
    expect(Date.parse(waiting.nextAttemptAt!) - blockedUntil.getTime()).toBeLessThan(5_000);

    // Another channel of the same platform is not held up.
    const elsewhere = await createPost(t, org, other.id, '<p>Meanwhile on another channel</p>');
    expect(await settled(t, org, elsewhere)).toMatchObject({ state: 'PUBLISHED' });

    // A second post on the limited channel waits as well, without a request and without spending an attempt.
    const second = await createPost(t, org, limited.id, '<p>Second on the limited channel</p>');
    const held = await postWhen(t, org, second, 'held until the channel may publish again', (p) => p.state === 'QUEUE' && p.nextAttemptAt === blockedUntil.toISOString());
    expect(held.attempts).toBe(0);
    expect(limited.sends()).toHaveLength(1);
    expect((await getPost(t, org, first)).state).toBe('QUEUE');

    await advanceTime(t, clock, 126_000);
    expect(await settled(t, org, first)).toMatchObject({ state: 'PUBLISHED', attempts: 2 });
    expect(await settled(t, org, second)).toMatchObject({ state: 'PUBLISHED', attempts: 1 });
    expect(limited.sends()).toHaveLength(3);
    expect(limited.messages()).toBe(2);
    expect(other.messages()).toBe(1);
  });

  it('a platform rejection is final, with the platform message and a notification; never retried', async () => {
    const { t, clock } = ctx;
    const org = await t.createOrg('Rejected');
    const ch = await connectTelegram(t, org, 'Strict News');
    telegram.inject({
      path: new RegExp(`^/bot${ch.token}/send`),
      status: 400,
      body: { ok: false, error_code: 400, description: "Bad Request: can't parse entities: unsupported start tag \"spoiler\" at byte offset 0" },
    });

    const id = await createPost(t, org, ch.id, '<p>Refused content</p>');
    const failed = await settled(t, org, id);
    expect(failed.state).toBe('ERROR');
    expect(failed.error).toBe('Telegram (Strict News) refused the post: Bad Request: can\'t parse entities: unsupported start tag "spoiler" at byte offset 0');
    expect(failed.attempts).toBe(1);
    expect(await notifications(t, org)).toContain(`Your post on Telegram (Strict News) failed: ${failed.error}`);
    expect((await outcomeEvents(t, org.id)).map((e) => e.type)).toEqual(['post.failed']);
    expect(await openJobs(t, id)).toBe(0);

    await advanceTime(t, clock, 60 * MINUTE);
    expect((await getPost(t, org, id)).state).toBe('ERROR');
    expect(ch.sends()).toHaveLength(1);
    expect(ch.messages()).toBe(0);
  });

  it('an expired access token is refreshed and the post publishes once with the new token stored', async () => {
    const { t } = ctx;
    const org = await t.createOrg('Refresh');
    const ch = await connectX(t, org, { id: '1460000000000000101', name: 'Refresh Inc.', username: 'refresh' });
    const before = await integrationRow(t, ch.id);
    const mark = x.log.length;
    x.expireAccessTokens();

    const id = await createPost(t, org, ch.id, '<p>Published after a token refresh</p>', { settings: X_SETTINGS });
    const done = await settled(t, org, id);
    expect(done).toMatchObject({ state: 'PUBLISHED', attempts: 1, error: null });
    const tweets = x.tweets.filter((tw) => tw.text === 'Published after a token refresh');
    expect(tweets).toHaveLength(1);
    expect(done.releaseId).toBe(tweets[0]!.id);

    const log = x.log.slice(mark);
    // 401 on the first try, one refresh, the same request again.
    expect(log.filter((r) => isPost(r, TWEETS))).toHaveLength(2);
    const refreshes = log.filter((r) => isPost(r, TOKEN));
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]!.body).toMatchObject({ grant_type: 'refresh_token' });

    const after = await integrationRow(t, ch.id);
    expect(after.credentials).not.toBe(before.credentials);
    expect(after.refreshNeeded).toBe(false);
    const oldCreds = JSON.parse(t.deps.secretBox.open(before.credentials!)) as { accessToken: string; refreshToken: string };
    const newCreds = JSON.parse(t.deps.secretBox.open(after.credentials!)) as { accessToken: string; refreshToken: string };
    expect(newCreds.accessToken).not.toBe(oldCreds.accessToken);
    expect(newCreds.refreshToken).not.toBe(oldCreds.refreshToken);
    expect(String(log.filter((r) => isPost(r, TWEETS)).at(-1)!.headers.authorization)).toBe(`Bearer ${newCreds.accessToken}`);
  });

  it('a token about to expire is refreshed before the publish request', async () => {
    const { t, clock } = ctx;
    const org = await t.createOrg('Refresh ahead');
    const ch = await connectX(t, org, { id: '1460000000000000102', name: 'Ahead Inc.', username: 'ahead' });
    await t.deps.database.db.update(integrations).set({ tokenExpiresAt: new Date(clock.now() + MINUTE) }).where(eq(integrations.id, ch.id));
    const mark = x.log.length;

    const id = await createPost(t, org, ch.id, '<p>Refreshed ahead of expiry</p>', { settings: X_SETTINGS });
    expect(await settled(t, org, id)).toMatchObject({ state: 'PUBLISHED', attempts: 1 });
    const log = x.log.slice(mark);
    expect(log.filter((r) => isPost(r, TOKEN))).toHaveLength(1);
    expect(log.filter((r) => isPost(r, TWEETS))).toHaveLength(1);
    expect((await integrationRow(t, ch.id)).tokenExpiresAt!.getTime()).toBeGreaterThan(clock.now() + 3600_000);
  });

  it('a revoked grant: the post fails asking to reconnect, the channel is marked refreshNeeded, notified, evented; new posts are refused', async () => {
    const { t } = ctx;
    const org = await t.createOrg('Revoked');
    const ch = await connectX(t, org, { id: '1460000000000000103', name: 'Revoked Inc.', username: 'revoked' });
    // X has no revocation hook: spend the refresh token as another client would (X rotates it), expire the access tokens.
    const { refreshToken } = JSON.parse(t.deps.secretBox.open((await integrationRow(t, ch.id)).credentials!)) as { refreshToken: string };
    const spent = await fetch(`${x.origin}/2/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${X_APP.clientId}:${X_APP.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
    });
    expect(spent.status).toBe(200);
    x.expireAccessTokens();
    const mark = x.log.length;
    const tweetsBefore = x.tweets.length;

    const id = await createPost(t, org, ch.id, '<p>Never published: the grant is gone</p>', { settings: X_SETTINGS });
    const failed = await settled(t, org, id);
    expect(failed.state).toBe('ERROR');
    // One readable reason (the platform's words), not the same prefix twice.
    expect(failed.error).toBe('The channel must be reconnected: Value passed for the token was invalid.');
    expect(x.tweets.length).toBe(tweetsBefore);
    const log = x.log.slice(mark);
    expect(log.filter((r) => isPost(r, TWEETS))).toHaveLength(1);
    expect(log.filter((r) => isPost(r, TOKEN))).toHaveLength(1);

    expect((await listed(t, org)).find((i) => i.id === ch.id)).toMatchObject({ refreshNeeded: true });
    const notes = await notifications(t, org);
    expect(notes.filter((n) => n.startsWith('Channel Revoked Inc. (x) must be reconnected'))).toHaveLength(1);
    expect(notes).toContain(`Your post on X (Revoked Inc.) failed: ${failed.error}`);
    const events = await outcomeEvents(t, org.id);
    expect(events.map((e) => e.type).sort()).toEqual(['integration.refresh_needed', 'post.failed']);
    expect(events.find((e) => e.type === 'integration.refresh_needed')!.payload).toMatchObject({
      integration: { id: ch.id, identifier: 'x', name: 'Revoked Inc.' },
      reason: 'Value passed for the token was invalid.',
    });
    expect(events.find((e) => e.type === 'post.failed')!.payload).toMatchObject({ postId: id, error: failed.error });
    for (const e of events) EVENT_PAYLOAD_SCHEMAS[e.type as 'post.failed' | 'integration.refresh_needed'].strict().parse(e.payload);

    const refused = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: ch.id }, value: [{ content: '<p>Again</p>', image: [] }], settings: X_SETTINGS }] },
    });
    const err = expectError(refused, 400, 'VALIDATION_FAILED');
    expect(err.fields).toEqual([{ path: 'posts.0.integration.id', message: expect.stringMatching(/must be reconnected/) }]);
  });

  it('disconnecting a channel ends its queued post ERROR "channel disconnected"; nothing is sent when it comes due', async () => {
    const { t, clock } = ctx;
    const org = await t.createOrg('Disconnect');
    const ch = await connectTelegram(t, org, 'Gone News');
    const id = await createPost(t, org, ch.id, '<p>Planned for later</p>', { date: new Date(clock.now() + 60 * MINUTE) });
    expect(await getPost(t, org, id)).toMatchObject({ state: 'QUEUE' });

    const res = await call(t.app, org.apiKey, { method: 'DELETE', url: `/public/v1/integrations/${ch.id}` });
    expect(res.statusCode, res.body).toBe(200);
    const failed = await getPost(t, org, id);
    expect(failed.state).toBe('ERROR');
    expect(failed.error).toMatch(/channel disconnected/i);
    expect(await notifications(t, org)).toContain('Channel Gone News (telegram) was disconnected; 1 queued post(s) will not be published');
    const events = await outcomeEvents(t, org.id);
    expect(events.map((e) => e.type).sort()).toEqual(['integration.disconnected', 'post.failed']);
    expect(events.find((e) => e.type === 'post.failed')!.payload).toMatchObject({ postId: id, error: failed.error, integration: { id: ch.id } });
    for (const e of events) EVENT_PAYLOAD_SCHEMAS[e.type as 'post.failed' | 'integration.disconnected'].strict().parse(e.payload);

    await advanceTime(t, clock, 2 * 60 * MINUTE);
    await waitFor(async () => (await openJobs(t, id)) === 0, 15_000, 'the post job to be done with');
    expect((await getPost(t, org, id)).state).toBe('ERROR');
    expect(ch.sends()).toHaveLength(0);
    expect(ch.messages()).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------

describe('publisher: outcome unknown is never re-sent blindly (API.md §6)', () => {
  // The attempt times out after 1 s while the simulators take longer: the request has left.
  const ctx = useApp({ PUBLISH_ATTEMPT_TIMEOUT_SECONDS: '1', PUBLISH_RETRY_BASE_SECONDS: '30' });
  const SLOW_MS = 2500;

  /** Makes every request of `sim` slow until the first request matching `match` has arrived. */
  async function slowUntilSent(sim: Simulator, match: (r: SimulatorRequest) => boolean, start: () => Promise<string>) {
    const mark = sim.log.length;
    sim.setLatency(SLOW_MS);
    try {
      const id = await start();
      await waitFor(async () => sim.log.slice(mark).some(match), 15_000, 'the publish request to reach the simulator');
      return id;
    } finally {
      sim.setLatency(0);
    }
  }

  /** The attempt timed out after the request left: still queued, the platform to be asked later. */
  async function interrupted(t: TestApp, org: TestOrg, id: string): Promise<PostView> {
    const p = await postWhen(t, org, id, 'waiting to ask the platform', (v) => v.state === 'QUEUE' && (v.error ?? '').includes('was interrupted'));
    expect(p.attempts).toBe(1);
    expect(p.error).toMatch(/^Attempt 1 was interrupted \(.+\); checking with Mastodon \(Mastodon \w+\) at .+ whether it arrived$/);
    expect(Date.parse(p.nextAttemptAt!)).toBeGreaterThan(t.clock.now());
    return p;
  }

  it('a platform that cannot be asked (Telegram): ERROR "outcome unknown", the one request is never repeated', async () => {
    const { t, clock } = ctx;
    const org = await t.createOrg('Unknown');
    const ch = await connectTelegram(t, org, 'Slow News');

    const id = await slowUntilSent(telegram, (r) => r.path.startsWith(`/bot${ch.token}/send`), () => createPost(t, org, ch.id, '<p>Maybe sent</p>'));
    const failed = await settled(t, org, id);
    expect(failed.state).toBe('ERROR');
    expect(failed.error).toContain('outcome unknown — check before re-posting');
    // The slow request did arrive and was handled by the platform after the client gave up.
    await waitFor(async () => ch.messages() === 1, 15_000, 'the simulator to finish the slow request');
    expect(await notifications(t, org)).toContain(`Your post on Telegram (Slow News) failed: ${failed.error}`);
    expect((await outcomeEvents(t, org.id)).map((e) => e.type)).toEqual(['post.failed']);

    await advanceTime(t, clock, 60 * MINUTE);
    expect(await openJobs(t, id)).toBe(0);
    expect((await getPost(t, org, id)).state).toBe('ERROR');
    expect(ch.sends()).toHaveLength(1);
    expect(ch.messages()).toBe(1);
  });

  it('a platform that can be asked (Mastodon): the post the interrupted request created is found → PUBLISHED with its id, sent once', async () => {
    const { t, clock } = ctx;
    const org = await t.createOrg('Reconciled');
    const ch = await connectMastodon(t, org, 'reconciled');
    const mine = () => mastodon.statuses.filter((s) => s.accountId === ch.account.id);
    const mark = mastodon.log.length;

    const id = await slowUntilSent(mastodon, (r) => isPost(r, STATUSES), () => createPost(t, org, ch.id, '<p>Interrupted but delivered</p>'));
    // The platform creates the status after the client gave up.
    await waitFor(async () => mine().length === 1, 15_000, 'the simulator to create the status');
    // Not re-sent, not failed: the platform is asked later whether the post arrived.
    const checking = await interrupted(t, org, id);
    expect(mine()).toHaveLength(1);
    await advanceTime(t, clock, Date.parse(checking.nextAttemptAt!) - clock.now() + 1000);

    const done = await settled(t, org, id);
    const status = mine()[0]!;
    expect(done).toMatchObject({ state: 'PUBLISHED', releaseId: status.id, releaseURL: `${MASTODON}/@reconciled/${status.id}`, error: null });
    expect(mastodon.log.slice(mark).filter((r) => isPost(r, STATUSES))).toHaveLength(1);
    expect(mine()).toHaveLength(1);
    expect((await outcomeEvents(t, org.id)).map((e) => e.type)).toEqual(['post.published']);
  });

  it('a platform that can be asked and has no such post: the interrupted request is sent again safely and publishes once', async () => {
    const { t, clock } = ctx;
    const org = await t.createOrg('Resent');
    const ch = await connectMastodon(t, org, 'resent');
    const mine = () => mastodon.statuses.filter((s) => s.accountId === ch.account.id);
    const mark = mastodon.log.length;
    // The slow request ends in a server error without creating anything.
    mastodon.inject({ path: STATUSES, status: 500, body: { error: 'We are sorry, but something went wrong on our end.' } });

    const id = await slowUntilSent(mastodon, (r) => isPost(r, STATUSES), () => createPost(t, org, ch.id, '<p>Interrupted and lost</p>'));
    // Let the simulator answer the slow request (a 500, nothing created) before anything else reaches it.
    await new Promise((r) => setTimeout(r, SLOW_MS + 200));
    expect(mine()).toHaveLength(0);
    const checking = await interrupted(t, org, id);
    await advanceTime(t, clock, Date.parse(checking.nextAttemptAt!) - clock.now() + 1000);
    // The platform has no such post: the item is queued to be sent again at once ("now" of the
    // moved clock, which pg-boss reaches once time moves on by as much again).
    const again = await postWhen(t, org, id, 'queued to be sent again', (p) => p.state === 'QUEUE' && (p.error ?? '').includes('sending again'));
    expect(again.error).toBe('Attempt 1 was interrupted and did not reach Mastodon (Mastodon resent); sending again');
    expect(mastodon.log.slice(mark).filter((r) => isPost(r, STATUSES))).toHaveLength(1);
    await advanceTime(t, clock, Date.parse(again.nextAttemptAt!) - Date.now() + 1000);

    const done = await settled(t, org, id);
    expect(mine()).toHaveLength(1);
    expect(done).toMatchObject({ state: 'PUBLISHED', releaseId: mine()[0]!.id, error: null });
    expect(mastodon.log.slice(mark).filter((r) => isPost(r, STATUSES))).toHaveLength(2);
    expect((await outcomeEvents(t, org.id)).map((e) => e.type)).toEqual(['post.published']);
  });
});
