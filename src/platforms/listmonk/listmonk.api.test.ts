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
import type { ListmonkSimulator } from './listmonk.simulator.js';
import { API_USER, DOWN_INSTANCE, INSTANCE, listmonkSimulator, NEWSLETTER, platformOriginsFor } from './listmonk.testkit.js';

/**
 * listmonk end to end through the HTTP API of a real app with its worker: the credentials form
 * verified against the instance (a wrong token and an unreachable address each refused on their
 * field with nothing stored), the list and templates tools, a campaign with a picture published by
 * the worker (the picture uploaded to listmonk's media, the bytes compared by sha256, the campaign
 * started), and the campaign's views and clicks as post analytics.
 */

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: ListmonkSimulator;
let dataDir: string;
let channelId: string;
let postId: string;
let campaignId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-listmonk-'));
  sim = await listmonkSimulator();
  clock = realtimeManualClock();
  t = await buildTestApp({ clock, startWorker: true, env: { DATA_DIR: dataDir, PLATFORM_ORIGINS: platformOriginsFor(sim) } });
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
}

async function settle(id: string): Promise<PostView> {
  let last: PostView | undefined;
  return waitFor(
    async () => {
      const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
      last = res.json<PostView>();
      if (last.state === 'PUBLISHED' || last.state === 'ERROR') return last;
      await releaseDueJobs(t, clock);
      await sleep(50);
      return undefined;
    },
    30_000,
    `post ${id} to be published (last seen ${JSON.stringify(last)})`,
  );
}

const connect = (payload: Record<string, string>) => call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/listmonk', payload });
const channels = () => t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id));

describe('listmonk through the API', () => {
  it('a wrong token and an address that answers nothing are refused on their fields, and nothing is stored', async () => {
    const wrong = expectError(await connect({ instanceUrl: INSTANCE, username: API_USER.username, token: 'not-the-token' }), 400, 'VALIDATION_FAILED');
    expect(wrong.fields).toEqual([{ path: 'token', message: 'listmonk refused the API user and token: invalid API credentials' }]);
    const down = expectError(await connect({ instanceUrl: DOWN_INSTANCE, username: API_USER.username, token: API_USER.token }), 400, 'VALIDATION_FAILED');
    expect(down.fields!.map((f) => f.path)).toEqual(['instanceUrl']);
    expect(down.fields![0]!.message).toMatch(/^listmonk could not be reached at https:\/\/down\.example\.com/);
    expect(await channels()).toHaveLength(0);
  });

  it('the API user and token are verified on the instance and the channel saved', async () => {
    const res = await connect({ instanceUrl: `${INSTANCE}/`, username: API_USER.username, token: API_USER.token });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'listmonk', name: 'Acme Newsletter', profile: 'tidings@lists.example.com' });
    expect(res.body).not.toContain(API_USER.token);
    channelId = res.json<{ id: string }>().id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(`${INSTANCE}#tidings`);
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toEqual({ instanceUrl: INSTANCE, username: API_USER.username, token: API_USER.token });
  });

  it('the list and templates tools', async () => {
    const tool = (methodName: string) => call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName, data: {} } });
    const lists = await tool('list');
    expect(lists.statusCode, lists.body).toBe(200);
    expect(lists.json<{ output: { id: string; name: string }[] }>().output.map((l) => [l.id, l.name])).toEqual([
      ['3', 'Newsletter'],
      ['5', 'Beta testers'],
    ]);
    const templates = await tool('templates');
    expect(templates.json<{ output: { id: string }[] }>().output.map((x) => x.id)).toEqual(['1', '2']);
  });

  it('refuses a campaign without a subject or list, naming the fields', async () => {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'listmonk', preview: '' }, value: [{ content: '<p>x</p>', image: [] }] }] },
    });
    const paths = expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['posts.0.settings.subject', 'posts.0.settings.list']));
    expect(sim.campaigns).toHaveLength(0);
  });

  it('publishes a campaign with a picture uploaded to listmonk, and starts it', async () => {
    const raw = Buffer.alloc(40 * 30 * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 7) & 255;
    const png = await sharp(raw, { raw: { width: 40, height: 30, channels: 3 } }).png().toBuffer();
    const media = await uploadMedia(t, org, png, 'team.png');
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: {
        type: 'now',
        shortLink: false,
        tags: [],
        posts: [
          {
            integration: { id: channelId },
            settings: { __type: 'listmonk', subject: 'June news', preview: 'What we shipped', list: String(NEWSLETTER), template: '1' },
            value: [{ content: '<p>Hello <strong>readers</strong></p>', image: [{ id: media.id, path: media.path, alt: 'The team' }] }],
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    postId = res.json<{ postId: string }[]>()[0]!.postId;
    const post = await settle(postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    expect(sim.campaigns).toHaveLength(1);
    const c = sim.campaigns[0]!;
    campaignId = String(c.id);
    expect(post.releaseId).toBe(campaignId);
    expect(post.releaseURL).toBe(`${INSTANCE}/admin/campaigns/${c.id}`);
    expect(c).toMatchObject({ subject: 'June news', lists: [NEWSLETTER], contentType: 'html', templateId: 1, status: 'running', createdBy: 'tidings' });
    expect(c.body).toContain('What we shipped</div><p>Hello <strong>readers</strong></p>');
    expect(sim.media.map((m) => m.sha256)).toEqual([sha(png)]);
    expect(c.images.map((i) => i.sha256)).toEqual([sha(png)]);
  });

  it('the campaign’s views and clicks as post analytics', async () => {
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    sim.setAnalytics(Number(campaignId), 'views', [{ date: today, count: 64 }]);
    sim.setAnalytics(Number(campaignId), 'clicks', [{ date: today, count: 9 }]);
    const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/post/${postId}?date=7` });
    expect(res.statusCode, res.body).toBe(200);
    const series = res.json<{ label: string; data: { total: number | string; date: string }[] }[]>();
    expect(series.map((s) => s.label)).toEqual(['Views', 'Clicks']);
    expect(series[0]!.data).toHaveLength(7);
    expect(series[0]!.data.at(-1)).toEqual({ date: today, total: 64 });
    expect(series[1]!.data.at(-1)).toEqual({ date: today, total: 9 });
  });
});
