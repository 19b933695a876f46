import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../lib/clock.js';
import { BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO, startBlueskySimulator, type BlueskySimulator } from '../../platforms/bluesky/bluesky.simulator.js';
import { startDiscordSimulator, type DiscordSimulator } from '../../platforms/discord/discord.simulator.js';
import { LINKEDIN_API_ORIGIN, LINKEDIN_WWW_ORIGIN, type LinkedinSimulator } from '../../platforms/linkedin/linkedin.simulator.js';
import { linkedinSimulator } from '../../platforms/linkedin/linkedin.testkit.js';
import { startMastodonSimulator, type MastodonSimulator } from '../../platforms/mastodon/mastodon.simulator.js';
import type { PlatformIdentifier } from '../../platforms/platform.js';
import { S3_ORIGIN, startRedditSimulator, type RedditSimulator } from '../../platforms/reddit/reddit.simulator.js';
import { startSlackSimulator, type SlackSimulator } from '../../platforms/slack/slack.simulator.js';
import { startTelegramSimulator, type TelegramSimulator } from '../../platforms/telegram/telegram.simulator.js';
import { startXSimulator, type XSimulator } from '../../platforms/x/x.simulator.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import { DISCORD, LINKEDIN_PAGE_APP, oauthAppEnv, REDDIT_APP, SLACK_APP, X_APP } from '../../../test/oauth-apps.js';
import type { ReceivedMedia } from '../../../test/simulators/harness.js';

/**
 * Published posts with media, end to end for the nine implemented platforms: real pictures and a
 * real video uploaded through `POST /upload`, attached to posts through `POST /posts`, published
 * by the worker against each platform's simulator, which records the sha256, length and type of
 * the bytes it received for every upload. The bytes must be the uploaded file's, once per media
 * item, in the post's order.
 *
 * One app (and one manual clock, which starts at real time) serves every test. Asynchronous
 * publishes (`pending`: videos being processed, Reddit media posts) are polled 20 s later by the
 * app clock: `settle` moves the clock to the next attempt and makes the jobs due in the database.
 */

const PUBLIC_URL = 'https://tidings.example';
const MASTODON = 'https://mastodon.example';
/** A real 2 s H.264 + AAC MP4 of 23,593 bytes (test/fixtures/media/README.md), accepted by all nine. */
const VIDEO_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/h264-aac-faststart.mp4');

const TELEGRAM = { token: '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ', bot: { id: 123456, username: 'tidings_bot' }, chat: { id: -1001234567890, title: 'Acme News', username: 'acmenews' } };
const BLUESKY = { handle: 'acme.bsky.social', did: 'did:plc:acme123', password: 'app-pass-1234', displayName: 'Acme on Bluesky' };
const X_USER = { id: '1460000000000000001', name: 'Acme Inc.', username: 'acme' };
const DISCORD_GUILD = '2100000000000000001';
const DISCORD_CHANNEL = '2200000000000000001';
const SLACK_CHANNEL = 'C0RANDOM';
/** Small video parts, so that the fixture goes to LinkedIn in several slices of the file. */
const LINKEDIN_VIDEO_PART = 8 * 1024;

type Platform = Extract<PlatformIdentifier, 'telegram' | 'bluesky' | 'mastodon' | 'x' | 'linkedin' | 'linkedin-page' | 'reddit' | 'slack' | 'discord'>;

interface Uploaded {
  id: string;
  path: string;
  type: 'image' | 'video';
  mimeType: string;
  size: number;
  /** of the file as uploaded */
  sha256: string;
}

interface PostItemView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  error: string | null;
}

interface PostView extends PostItemView {
  nextAttemptAt: string | null;
  thread: PostItemView[];
}

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let dataDir: string;
let telegram: TelegramSimulator;
let bluesky: BlueskySimulator;
let mastodon: MastodonSimulator;
let x: XSimulator;
let linkedin: LinkedinSimulator;
let reddit: RedditSimulator;
let slack: SlackSimulator;
let discord: DiscordSimulator;
const channels = {} as Record<Platform, string>;

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-publish-media-'));

  telegram = await startTelegramSimulator();
  telegram.addBot(TELEGRAM.token, TELEGRAM.bot);
  telegram.addChat({ ...TELEGRAM.chat, admins: [TELEGRAM.bot.id] });

  bluesky = await startBlueskySimulator();
  bluesky.addAccount(BLUESKY);

  // Attachments are processed asynchronously (202, then 206 once, then 200), as on a busy instance.
  mastodon = await startMastodonSimulator({ publicUrl: MASTODON, mediaProcessingPolls: 1 });

  x = await startXSimulator();
  x.addClient(X_APP);
  x.addUser(X_USER);

  linkedin = await linkedinSimulator({ videoPartSize: LINKEDIN_VIDEO_PART });
  linkedin.addApp({ ...LINKEDIN_PAGE_APP, refreshTokens: true });

  reddit = await startRedditSimulator();
  reddit.addApp({ clientId: REDDIT_APP.clientId, secret: REDDIT_APP.clientSecret, redirectUri: `${PUBLIC_URL}/integrations/social/reddit/callback` });
  reddit.addUser({ id: '8xwlg', name: 'tidings_tester' });
  reddit.addSubreddit({ name: 'typescript', title: 'TypeScript programming' });

  slack = await startSlackSimulator(SLACK_APP);
  slack.addWorkspace({ id: 'T0ACME', name: 'Acme Corp', domain: 'acme' }, [{ id: SLACK_CHANNEL, name: 'random', botMember: true }]);

  discord = await startDiscordSimulator(DISCORD);
  discord.addGuild({ id: DISCORD_GUILD, name: 'Acme Guild', systemChannelId: DISCORD_CHANNEL }, [{ id: DISCORD_CHANNEL, name: 'general', type: 0 }]);

  const origins: [string, { origin: string }][] = [
    ['https://api.telegram.org', telegram],
    [BSKY_ENTRYWAY, bluesky],
    [BSKY_PDS, bluesky],
    [BSKY_VIDEO, bluesky],
    [MASTODON, mastodon],
    ['https://x.com', x],
    ['https://api.x.com', x],
    [LINKEDIN_WWW_ORIGIN, linkedin],
    [LINKEDIN_API_ORIGIN, linkedin],
    ['https://www.reddit.com', reddit],
    ['https://oauth.reddit.com', reddit],
    [S3_ORIGIN, reddit],
    ['https://slack.com', slack],
    ['https://files.slack.com', slack],
    ['https://discord.com', discord],
  ];
  clock = realtimeManualClock();
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: {
      DATA_DIR: dataDir,
      PUBLIC_URL,
      PLATFORM_ORIGINS: origins.map(([real, sim]) => `${real}=${sim.origin}`).join(','),
      ...oauthAppEnv(),
    },
  });
  org = await t.createOrg('Acme');

  channels.telegram = await connectWithCredentials('telegram', { botToken: TELEGRAM.token, chatId: `@${TELEGRAM.chat.username}` });
  channels.bluesky = await connectWithCredentials('bluesky', { identifier: BLUESKY.handle, password: BLUESKY.password });
  const account = mastodon.addAccount({ username: 'acme', display_name: 'Acme on Mastodon' });
  mastodon.signIn(account.id);
  channels.mastodon = await connectOAuth('mastodon', `?instanceUrl=${encodeURIComponent(MASTODON)}`);
  for (const p of ['x', 'linkedin', 'linkedin-page', 'reddit', 'slack', 'discord'] as const) channels[p] = await connectOAuth(p);
});

afterAll(async () => {
  await t?.close();
  await Promise.all([telegram, bluesky, mastodon, x, linkedin, reddit, slack, discord].map((s) => s?.close()));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Channels

async function connectWithCredentials(identifier: Platform, payload: Record<string, unknown>): Promise<string> {
  const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/social/${identifier}`, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

/** GET /social/{id}, the user's approval at the (simulated) platform, the callback: the new channel's id. */
async function connectOAuth(identifier: Platform, query = ''): Promise<string> {
  const begun = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/social/${identifier}${query}` });
  expect(begun.statusCode, begun.body).toBe(200);
  const approved = await fetch(begun.json<{ url: string }>().url, { redirect: 'manual' });
  expect(approved.status, `${identifier} authorisation: ${await approved.clone().text()}`).toBe(302);
  const back = new URL(approved.headers.get('location')!);
  const page = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  expect(page.statusCode, page.body).toBe(200);
  const listed = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
  const channel = listed.json<{ id: string; identifier: string }[]>().find((i) => i.identifier === identifier);
  expect(channel, `${identifier} channel`).toBeDefined();
  return channel!.id;
}

// ---------------------------------------------------------------------------------------------
// Media

let imageSeed = 0;

/** A 640×480 picture (PNG or JPEG) whose pixels differ from every other one this file makes. */
async function picture(format: 'png' | 'jpeg'): Promise<Buffer> {
  const seed = ++imageSeed;
  const [w, h] = [640, 480];
  const raw = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      raw[i] = (x + seed * 37) & 255;
      raw[i + 1] = (y * 2 + seed * 11) & 255;
      raw[i + 2] = ((x ^ y) + seed * 5) & 255;
    }
  }
  const image = sharp(raw, { raw: { width: w, height: h, channels: 3 } });
  return format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 85 }).toBuffer();
}

async function upload(data: Buffer, filename: string): Promise<Uploaded> {
  const item = await uploadMedia(t, org, data, filename);
  expect(item.size).toBe(data.length);
  return { id: item.id, path: item.path, type: item.type as 'image' | 'video', mimeType: item.mimeType, size: item.size, sha256: sha(data) };
}

type Kind = 'png' | 'jpeg' | 'video';

async function uploadKind(kind: Kind): Promise<Uploaded> {
  if (kind === 'video') {
    const m = await upload(await readFile(VIDEO_FIXTURE), 'clip.mp4');
    expect(m).toMatchObject({ type: 'video', mimeType: 'video/mp4' });
    return m;
  }
  const m = await upload(await picture(kind), `picture.${kind === 'png' ? 'png' : 'jpg'}`);
  expect(m).toMatchObject({ type: 'image', mimeType: `image/${kind}` });
  return m;
}

// ---------------------------------------------------------------------------------------------
// Posts

async function getPost(id: string): Promise<PostView> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostView>();
}

const done = (i: PostItemView) => i.state === 'PUBLISHED' || i.state === 'ERROR';

/**
 * Waits until the post and its thread items are PUBLISHED or ERROR. A next attempt in the app's
 * future (a `pending` poll 20 s on, a thread item) is brought forward: the clock moves to it and
 * the job is made due in the database.
 */
async function settle(id: string): Promise<PostView> {
  let last: PostView | undefined;
  try {
    return await waitFor(
      async () => {
        last = await getPost(id);
        if (done(last) && last.thread.every(done)) return last;
        const next = last.nextAttemptAt ? Date.parse(last.nextAttemptAt) : Number.NaN;
        if (next > clock.now()) clock.advance(next - clock.now());
        await releaseDueJobs(t, clock);
        await sleep(100);
        return undefined;
      },
      45_000,
      `post ${id} to be published`,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: e });
  }
}

let postSeq = 0;

/** Creates a post (a thread when several items) with these media, publishes it now and waits for it. */
async function publish(platform: Platform, items: Uploaded[][], settings: Record<string, unknown>): Promise<PostView> {
  const n = ++postSeq;
  const res = await call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: {
      type: 'now',
      shortLink: false,
      tags: [],
      posts: [
        {
          integration: { id: channels[platform] },
          settings,
          value: items.map((media, i) => ({ content: `Media post ${n}, item ${i + 1} on ${platform}`, image: media.map((m) => ({ id: m.id, path: m.path })) })),
        },
      ],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
  for (const item of [post, ...post.thread]) expect({ state: item.state, error: item.error }).toEqual({ state: 'PUBLISHED', error: null });
  return post;
}

// ---------------------------------------------------------------------------------------------
// What each simulator received

const receivedOnly = (m: Partial<ReceivedMedia>): ReceivedMedia => ({ sha256: m.sha256!, size: m.size!, mimeType: m.mimeType! });

interface Received {
  /** the media of a published post (or thread item) by its release id, in the post's order */
  post(releaseId: string): ReceivedMedia[];
  /** every media upload the simulator took in */
  uploads(): ReceivedMedia[];
  /** the type the platform is told the bytes are, for a stored media item */
  mimeType(m: Uploaded): string;
}

const RECEIVED: Record<Platform, Received> = {
  telegram: {
    post: (id) => {
      const first = telegram.messages.find((m) => String(m.messageId) === id)!;
      // A media group is one message per item; the first one's id is the post's.
      return (first.groupId ? telegram.messages.filter((m) => m.groupId === first.groupId) : [first]).flatMap((m) => m.media).map(receivedOnly);
    },
    uploads: () => telegram.messages.flatMap((m) => m.media).map(receivedOnly),
    mimeType: (m) => m.mimeType,
  },
  bluesky: {
    post: (uri) => bluesky.find(uri)!.media.map(receivedOnly),
    // Blobs are content-addressed (the same bytes twice are one blob): count them in the records.
    uploads: () => bluesky.records.flatMap((r) => r.media).map(receivedOnly),
    mimeType: (m) => m.mimeType,
  },
  mastodon: {
    post: (id) => mastodon.statuses.find((s) => s.id === id)!.mediaIds.map((mid) => receivedOnly(mastodon.media.get(mid)!)),
    uploads: () => [...mastodon.media.values()].map(receivedOnly),
    mimeType: (m) => m.mimeType,
  },
  x: {
    post: (id) => x.tweets.find((tw) => tw.id === id)!.mediaKeys.map((key) => receivedOnly([...x.media.values()].find((m) => m.key === key)!)),
    uploads: () => [...x.media.values()].filter((m) => m.sha256).map(receivedOnly),
    mimeType: (m) => m.mimeType,
  },
  linkedin: {
    post: (urn) => linkedin.posts.find((p) => p.urn === urn)!.mediaUrns.map((u) => receivedOnly(linkedin.assets.get(u)!)),
    uploads: () => [...linkedin.assets.values()].filter((a) => a.sha256).map(receivedOnly),
    // LinkedIn's upload URLs take raw bytes; it finds out the format itself.
    mimeType: () => 'application/octet-stream',
  },
  'linkedin-page': {
    post: (urn) => RECEIVED.linkedin.post(urn),
    uploads: () => RECEIVED.linkedin.uploads(),
    mimeType: () => 'application/octet-stream',
  },
  reddit: {
    post: (id) => {
      const { submission } = reddit.find(id);
      const key = decodeURIComponent(submission!.url.slice(S3_ORIGIN.length + 1));
      return [...reddit.state.media.values()].filter((m) => m.key === key).map(receivedOnly);
    },
    uploads: () => [...reddit.state.media.values()].filter((m) => m.sha256).map(receivedOnly),
    mimeType: (m) => m.mimeType,
  },
  slack: {
    post: (ts) => slack.messages.find((m) => m.ts === ts)!.files.map(receivedOnly),
    uploads: () => slack.messages.flatMap((m) => m.files).map(receivedOnly),
    mimeType: (m) => m.mimeType,
  },
  discord: {
    post: (id) => discord.messages.find((m) => m.id === id)!.attachments.map(receivedOnly),
    uploads: () => discord.messages.flatMap((m) => m.attachments).map(receivedOnly),
    mimeType: (m) => m.mimeType,
  },
};

/**
 * Each published item carries exactly its media's bytes, in order, and each file reached the
 * platform once among the uploads made since `uploadsBefore` (the same video goes to every platform,
 * and the two LinkedIn channels share a simulator).
 */
function expectReceived(platform: Platform, post: PostView, items: Uploaded[][], uploadsBefore: number) {
  const r = RECEIVED[platform];
  const published = [post, ...post.thread];
  expect(published).toHaveLength(items.length);
  for (const [i, media] of items.entries()) {
    const got = r.post(published[i]!.releaseId!);
    expect(got, `${platform} item ${i + 1}`).toEqual(media.map((m) => ({ sha256: m.sha256, size: m.size, mimeType: r.mimeType(m) })));
  }
  const uploads = r.uploads().slice(uploadsBefore);
  for (const m of items.flat()) expect(uploads.filter((u) => u.sha256 === m.sha256), `${platform} uploads of ${m.id}`).toHaveLength(1);
}

async function publishAndCheck(platform: Platform, kinds: Kind[][], settings: Record<string, unknown> = {}) {
  const items: Uploaded[][] = [];
  for (const k of kinds) {
    const media: Uploaded[] = [];
    for (const kind of k) media.push(await uploadKind(kind));
    items.push(media);
  }
  const uploadsBefore = RECEIVED[platform].uploads().length;
  const post = await publish(platform, items, settings);
  expectReceived(platform, post, items, uploadsBefore);
  return { post, items };
}

// ---------------------------------------------------------------------------------------------

const X_SETTINGS = { who_can_reply_post: 'everyone' };
const SLACK_SETTINGS = { channel: SLACK_CHANNEL };
const DISCORD_SETTINGS = { channel: DISCORD_CHANNEL };
const redditSettings = (type: 'image' | 'video', title: string) => ({
  subreddit: [{ value: { subreddit: '/r/typescript', title, type, is_flair_required: false } }],
});

describe('published posts carry the uploaded bytes to each platform', () => {
  describe('telegram', () => {
    it('one picture goes as a photo', async () => {
      const { post } = await publishAndCheck('telegram', [['png']]);
      const sent = telegram.messages.find((m) => String(m.messageId) === post.releaseId)!;
      expect(sent.groupId).toBeUndefined();
    });

    it('three pictures go as one media group, in order', async () => {
      const { post } = await publishAndCheck('telegram', [['png', 'jpeg', 'png']]);
      const first = telegram.messages.find((m) => String(m.messageId) === post.releaseId)!;
      expect(telegram.messages.filter((m) => m.groupId === first.groupId)).toHaveLength(3);
    });

    it('a thread whose reply carries its own picture', async () => {
      const { post } = await publishAndCheck('telegram', [['jpeg'], ['png']]);
      const reply = telegram.messages.find((m) => String(m.messageId) === post.thread[0]!.releaseId)!;
      expect(reply.replyTo).toBe(Number(post.releaseId));
    });

    it('a video', async () => {
      await publishAndCheck('telegram', [['video']]);
    });
  });

  describe('bluesky', () => {
    it('four pictures in one post', async () => {
      await publishAndCheck('bluesky', [['png', 'jpeg', 'png', 'jpeg']]);
    });

    it('a thread whose reply carries its own picture', async () => {
      const { post } = await publishAndCheck('bluesky', [['jpeg'], ['png']]);
      expect(bluesky.find(post.thread[0]!.releaseId!)!.reply?.parent.uri).toBe(post.releaseId);
    });

    it('a video (processed by the video service, then posted)', async () => {
      const { post } = await publishAndCheck('bluesky', [['video']]);
      expect(bluesky.find(post.releaseId!)!.embed?.$type).toBe('app.bsky.embed.video');
    });
  });

  describe('mastodon', () => {
    it('two pictures (processed asynchronously) in one status', async () => {
      await publishAndCheck('mastodon', [['jpeg', 'png']]);
    });

    it('a thread whose reply carries its own picture', async () => {
      const { post } = await publishAndCheck('mastodon', [['png'], ['jpeg']]);
      expect(mastodon.statuses.find((s) => s.id === post.thread[0]!.releaseId)!.inReplyToId).toBe(post.releaseId);
    });

    it('a video', async () => {
      await publishAndCheck('mastodon', [['video']]);
    });
  });

  describe('x', () => {
    it('four pictures in one post', async () => {
      await publishAndCheck('x', [['png', 'jpeg', 'jpeg', 'png']], X_SETTINGS);
    });

    it('a thread whose reply carries its own picture', async () => {
      const { post } = await publishAndCheck('x', [['jpeg'], ['png', 'jpeg']], X_SETTINGS);
      expect(x.tweets.find((tw) => tw.id === post.thread[0]!.releaseId)!.replyTo).toBe(post.releaseId);
    });

    it('a video (chunked upload, then processing)', async () => {
      await publishAndCheck('x', [['video']], X_SETTINGS);
    });
  });

  describe('linkedin', () => {
    it('one picture', async () => {
      await publishAndCheck('linkedin', [['png']]);
    });

    it('three pictures as a multi-image post', async () => {
      const { post } = await publishAndCheck('linkedin', [['jpeg', 'png', 'jpeg']]);
      expect(linkedin.posts.find((p) => p.urn === post.releaseId)!.content).toMatchObject({ multiImage: { images: expect.any(Array) } });
    });

    it('a video, sent in the parts LinkedIn asks for', async () => {
      const { items } = await publishAndCheck('linkedin', [['video']]);
      const video = [...linkedin.assets.values()].find((a) => a.sha256 === items[0]![0]!.sha256)!;
      // The fixture is larger than one part: several slices of the file were put and joined.
      expect(video.parts!.length).toBe(Math.ceil(items[0]![0]!.size / LINKEDIN_VIDEO_PART));
      expect(video.parts!.length).toBeGreaterThan(1);
    });
  });

  describe('linkedin-page', () => {
    it('two pictures posted as the page', async () => {
      const { post } = await publishAndCheck('linkedin-page', [['png', 'jpeg']]);
      expect(linkedin.posts.find((p) => p.urn === post.releaseId)!.author).toMatch(/^urn:li:organization:/);
    });

    it('a video posted as the page', async () => {
      await publishAndCheck('linkedin-page', [['video']]);
    });
  });

  describe('reddit', () => {
    it('an image post', async () => {
      await publishAndCheck('reddit', [['jpeg']], redditSettings('image', 'A picture from Tidings'));
    });

    it('a video post (with its poster uploaded separately)', async () => {
      const { post } = await publishAndCheck('reddit', [['video']], redditSettings('video', 'A video from Tidings'));
      const { submission } = reddit.find(post.releaseId!);
      expect(submission!.posterSha256).toMatch(/^[0-9a-f]{64}$/);
    });
  });

  describe('slack', () => {
    it('two pictures in one message', async () => {
      await publishAndCheck('slack', [['png', 'jpeg']], SLACK_SETTINGS);
    });

    it('a thread whose reply carries its own picture', async () => {
      const { post } = await publishAndCheck('slack', [['jpeg'], ['png']], SLACK_SETTINGS);
      expect(slack.messages.find((m) => m.ts === post.thread[0]!.releaseId)!.threadTs).toBe(post.releaseId);
    });

    it('a video', async () => {
      await publishAndCheck('slack', [['video']], SLACK_SETTINGS);
    });
  });

  describe('discord', () => {
    it('three pictures in one message', async () => {
      await publishAndCheck('discord', [['jpeg', 'png', 'png']], DISCORD_SETTINGS);
    });

    it('a thread whose reply carries its own picture', async () => {
      const { post } = await publishAndCheck('discord', [['png'], ['jpeg']], DISCORD_SETTINGS);
      expect(discord.messages.find((m) => m.id === post.thread[0]!.releaseId)!.replyTo).toBe(post.releaseId);
    });

    it('a video', async () => {
      await publishAndCheck('discord', [['video']], DISCORD_SETTINGS);
    });
  });
});
