import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import type { ManualClock } from '../../lib/clock.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import type { TwitchSimulator } from './twitch.simulator.js';
import { TWITCH_APP, twitchSimulator, platformOriginsFor, STREAMER } from './twitch.testkit.js';

/**
 * Twitch end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/twitch` → the simulator's authorisation page → the callback, then a post of two
 * items published by the worker as a chat message and a reply to it, an announcement in its
 * colour (TwitchDto settings), text too long refused when the post is made, and a transparent
 * refresh of an expired token. The simulator's records are the verdict.
 */

const PUBLIC_URL = 'https://tidings.example';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: TwitchSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await twitchSimulator();
  sim.apps.get(TWITCH_APP.clientId)!.redirectUris = [`${PUBLIC_URL}/integrations/social/twitch/callback`];
  clock = realtimeManualClock();
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), TWITCH_CLIENT_ID: TWITCH_APP.clientId, TWITCH_CLIENT_SECRET: TWITCH_APP.clientSecret },
  });
  org = await t.createOrg('Acme');
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
});

interface PostView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
  nextAttemptAt: string | null;
}

const createPost = (values: { content: string; image?: { id: string; path: string }[] }[], settings: Record<string, unknown> = {}) =>
  call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'twitch', ...settings }, value: values.map((v) => ({ content: v.content, image: v.image ?? [] })) }] },
  });

async function settle(id: string): Promise<PostView> {
  let last: PostView | undefined;
  return waitFor(
    async () => {
      const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
      last = res.json<PostView>();
      if (last.state === 'PUBLISHED' || last.state === 'ERROR') return last;
      const next = last.nextAttemptAt ? Date.parse(last.nextAttemptAt) : Number.NaN;
      if (next > clock.now()) clock.advance(next - clock.now());
      await releaseDueJobs(t, clock);
      await sleep(50);
      return undefined;
    },
    45_000,
    `post ${id} to be published (last seen ${JSON.stringify(last)})`,
  );
}

describe('twitch through the API', () => {
  it('is connectable: GET /social/twitch answers the authorisation URL, and the callback stores the channel', async () => {
    const begun = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/twitch' });
    expect(begun.statusCode, begun.body).toBe(200);
    const url = new URL(begun.json<{ url: string }>().url);
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth2/authorize');
    expect(url.searchParams.get('scope')).toBe('user:write:chat user:read:chat moderator:manage:announcements');
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/integrations/social/twitch/callback`);
    const approved = await fetch(url, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    const page = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(page.statusCode, page.body).toBe(200);

    const listed = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    const channel = listed.json<{ id: string; identifier: string; name: string; profile: string; picture: string }[]>().find((i) => i.identifier === 'twitch')!;
    expect(channel).toMatchObject({ name: 'AcmeLive', profile: 'acmelive', picture: STREAMER.profile_image_url });
    channelId = channel.id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(STREAMER.id);
  });

  it('publishes a post and its thread item as a chat message and a reply to it', async () => {
    const res = await createPost([{ content: '<p>We are <strong>live</strong>!</p>' }, { content: '<p>Come say hi</p>' }]);
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error, url: post.releaseURL }).toEqual({ state: 'PUBLISHED', error: null, url: 'https://twitch.tv/acmelive' });
    const reply = await waitFor(
      async () => {
        await releaseDueJobs(t, clock);
        await sleep(50);
        return sim.messages.find((m) => m.replyTo === post.releaseId);
      },
      30_000,
      'the thread item to be sent',
    );
    expect(sim.messages.map((m) => ({ id: m.id, text: m.text, replyTo: m.replyTo, broadcaster: m.broadcasterId, sender: m.senderId }))).toEqual([
      { id: post.releaseId, text: 'We are live!', replyTo: null, broadcaster: STREAMER.id, sender: STREAMER.id },
      { id: reply.id, text: 'Come say hi', replyTo: post.releaseId, broadcaster: STREAMER.id, sender: STREAMER.id },
    ]);
  });

  it('publishes an announcement in the colour of the settings', async () => {
    const res = await createPost([{ content: '<p>Giveaway at <strong>8 pm</strong></p>' }], { messageType: 'announcement', announcementColor: 'orange' });
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error, url: post.releaseURL }).toEqual({ state: 'PUBLISHED', error: null, url: 'https://twitch.tv/acmelive' });
    expect(post.releaseId).toMatch(/^announcement-[0-9a-f]{32}$/);
    expect(sim.announcements).toMatchObject([{ text: 'Giveaway at 8 pm', color: 'orange', broadcasterId: STREAMER.id, moderatorId: STREAMER.id }]);
  });

  it('refuses an announcement colour Twitch does not have, naming the field', async () => {
    const res = await createPost([{ content: 'red?' }], { messageType: 'announcement', announcementColor: 'red' });
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toContain('posts.0.settings.announcementColor');
  });

  it('refuses, when the post is made, text over 500 characters', async () => {
    const res = await createPost([{ content: 'a'.repeat(501) }]);
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toContain('posts.0.value.0.content');
  });

  it('an expired access token is refreshed on the way, and the refresh token Twitch answers with is stored', async () => {
    const open = async () => {
      const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, channelId));
      return JSON.parse(t.deps.secretBox.open(row!.credentials!)) as { accessToken: string; refreshToken: string };
    };
    const before = await open();
    const refreshes = sim.refreshCount();
    const sent = sim.messages.length;
    sim.expireAccessTokens();
    const res = await createPost([{ content: 'after expiry' }]);
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    expect(sim.refreshCount()).toBe(refreshes + 1);
    expect(sim.messages.slice(sent).map((m) => m.text)).toEqual(['after expiry']);
    const after = await open();
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });
});
