import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import type { ManualClock } from '../../lib/clock.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import type { SkoolSimulator } from './skool.simulator.js';
import { BUILDERS, HELP, MEMBER, platformOriginsFor, skoolSimulator, VIP, WINS } from './skool.testkit.js';

/**
 * Skool end to end through the HTTP API of a real app with its worker: the credentials form
 * (`POST /social/skool` with the session cookies, verified with `/self`; stale cookies are a 400
 * naming `authToken`, nothing stored), the groups and label tools, a post with two pictures and a
 * comment made through `POST /posts`, Skool's own refusal kept in the post's error, and an ended
 * session marking the channel for reconnection. The simulator's records are the verdict — but the
 * simulator encodes the reference's description of Skool's PRIVATE web API plus our assumptions
 * (see skool.simulator.ts), not verified behaviour of Skool.
 */

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: SkoolSimulator;
let dataDir: string;
let channelId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-skool-'));
  sim = await skoolSimulator();
  clock = realtimeManualClock();
  t = await buildTestApp({ clock, startWorker: true, env: { DATA_DIR: dataDir, PUBLIC_URL: 'https://tidings.example', PLATFORM_ORIGINS: platformOriginsFor(sim) } });
  org = await t.createOrg('Acme');
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface PostView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
  nextAttemptAt: string | null;
}

async function getPost(id: string): Promise<PostView> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostView>();
}

async function settle(id: string): Promise<PostView> {
  let last: PostView | undefined;
  return waitFor(
    async () => {
      last = await getPost(id);
      if (last.state === 'PUBLISHED' || last.state === 'ERROR') return last;
      const next = last.nextAttemptAt ? Date.parse(last.nextAttemptAt) : Number.NaN;
      if (next > clock.now()) clock.advance(next - clock.now());
      await releaseDueJobs(t, clock);
      await sleep(50);
      return undefined;
    },
    30_000,
    `post ${id} to settle (last seen ${JSON.stringify(last)})`,
  );
}

const createPost = (settings: Record<string, unknown>, value: { content: string; image: { id: string; path: string }[] }[]) =>
  call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'skool', ...settings }, value }] },
  });

async function picture(seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(32 * 24 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 13 + seed * 29) & 255;
  return sharp(raw, { raw: { width: 32, height: 24, channels: 3 } }).png().toBuffer();
}

describe('skool through the API (simulated private API: assumptions, not verified behaviour)', () => {
  it('stale session cookies answer 400 naming authToken and store no channel', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/skool', payload: { authToken: 'logged-out-token', clientId: MEMBER.clientId } });
    const err = expectError(res, 400, 'VALIDATION_FAILED');
    expect(err.fields!.map((f) => f.path)).toEqual(['authToken']);
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id))).toHaveLength(0);
  });

  it('the form describes how to get the cookies, and the settings rules say what is assumed', async () => {
    const form = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/skool' });
    expect(form.statusCode, form.body).toBe(200);
    expect(form.body).toMatch(/auth_token/);
    expect(form.body).toMatch(/private web API/);
  });

  it('connects with the session cookies, verified with /self, stored sealed', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/skool', payload: { authToken: MEMBER.authToken, clientId: MEMBER.clientId } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'skool', name: 'Ada Lovelace', profile: MEMBER.name });
    expect(res.body).not.toContain(MEMBER.authToken);
    channelId = res.json<{ id: string }>().id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(MEMBER.id);
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toEqual({ authToken: MEMBER.authToken, clientId: MEMBER.clientId, userId: MEMBER.id });

    const settings = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/integration-settings/${channelId}` });
    expect(settings.statusCode, settings.body).toBe(200);
    expect(settings.json<{ output: { rules: string } }>().output.rules).toMatch(/nothing here is verified against public documentation.*assumed:/s);
  });

  it('the groups and label tools list the member’s groups and a group’s labels', async () => {
    const trigger = (methodName: string, data: unknown) => call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName, data } });
    const groups = await trigger('groups', {});
    expect(groups.statusCode, groups.body).toBe(200);
    expect(groups.json<{ output: { id: string }[] }>().output.map((g) => g.id)).toEqual([BUILDERS.id, VIP.id, expect.any(String)]);
    const labels = await trigger('label', { id: BUILDERS.id });
    expect(labels.json<{ output: { id: string; name: string }[] }>().output.slice(0, 2)).toEqual([
      { id: WINS.id, name: 'Wins' },
      { id: HELP.id, name: 'Help' },
    ]);
  });

  it('refuses a post without group, label and title, naming them, before anything is sent', async () => {
    const res = await createPost({}, [{ content: '<p>x</p>', image: [] }]);
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path).sort()).toEqual(['posts.0.settings.group', 'posts.0.settings.label', 'posts.0.settings.title']);
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes a post with two pictures (byte for byte) and a comment under it', async () => {
    const [a, b] = [await picture(1), await picture(2)];
    const ma = await uploadMedia(t, org, a, 'a.png');
    const mb = await uploadMedia(t, org, b, 'b.png');
    const res = await createPost({ group: BUILDERS.id, label: WINS.id, title: 'Launch day' }, [
      { content: '<p>We <strong>launched</strong>!</p>', image: [{ id: ma.id, path: ma.path }, { id: mb.id, path: mb.path }] },
      { content: '<p>Details in the comments</p>', image: [] },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    await waitFor(async () => (sim.posts.length === 2 ? true : (await releaseDueJobs(t, clock), await sleep(50), undefined)), 30_000, 'the comment');
    const [made, comment] = sim.posts;
    expect(post.releaseId).toBe(made!.id);
    expect(post.releaseURL).toBe('https://www.skool.com/builders-club/launch-day');
    expect(made).toMatchObject({ type: 'generic', groupId: BUILDERS.id, labels: WINS.id, title: 'Launch day', content: 'We launched!' });
    expect(made!.attachments.map((x) => x.sha256)).toEqual([sha(a), sha(b)]);
    expect(comment).toMatchObject({ type: 'comment', rootId: made!.id, parentId: made!.id, content: 'Details in the comments' });
  });

  it("Skool's refusal fails the post with Skool's words", async () => {
    const before = sim.posts.length;
    const res = await createPost({ group: VIP.id, label: 'none', title: 'Too early' }, [{ content: '<p>hi</p>', image: [] }]);
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/must be admin or level 3/);
    expect(sim.posts.length).toBe(before);
  });

  it('an ended session (logged out of Skool) fails the post and marks the channel for reconnection', async () => {
    sim.logout(MEMBER.id);
    const res = await createPost({ group: BUILDERS.id, label: HELP.id, title: 'After logout' }, [{ content: '<p>hi</p>', image: [] }]);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/Skool ended the session/);
    const listed = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    expect(listed.json<{ id: string; refreshNeeded: boolean }[]>().find((i) => i.id === channelId)!.refreshNeeded).toBe(true);
  });
});
