import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO, startBlueskySimulator, type BlueskySimulator } from '../../platforms/bluesky/bluesky.simulator.js';
import { createChannel, realtimeManualClock, waitFor } from '../../../test/factories.js';
import { call, expectError, useTestApp } from '../../../test/helpers.js';
import type { AnalyticsOverview } from './analytics.schemas.js';

/**
 * `GET /analytics/overview` and its CSV through HTTP, on a real app with its worker publishing to
 * the Bluesky simulator: posts counted per channel in the period, engagement from the posts'
 * own figures (Bluesky reports followers for the account, likes/reposts/replies/quotes per post),
 * best and worst post, "not reported" (null) for what a platform does not give, a channel that
 * cannot be asked saying why, the period moving with the clock, and the CSV's quoting.
 */

const ACCOUNT = { handle: 'acme.bsky.social', did: 'did:plc:acme123', password: 'app-pass-1234', displayName: 'Acme on Bluesky' };
const clock = realtimeManualClock();
let sky: BlueskySimulator;
afterAll(async () => sky?.close());

const { t, orgs } = useTestApp(async () => {
  sky = await startBlueskySimulator();
  sky.addAccount(ACCOUNT);
  return { clock, startWorker: true, env: { PLATFORM_ORIGINS: [BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO].map((o) => `${o}=${sky.origin}`).join(',') } };
}, 'Acme', 'Beta');

const get = (key: string, url: string) => call(t.app, key, { method: 'GET', url: `/public/v1${url}` });

let bluesky: string;
let discord: string;
let stale: string;
const posted: string[] = [];

beforeAll(async () => {
  const res = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: '/public/v1/social/bluesky', payload: { identifier: ACCOUNT.handle, password: ACCOUNT.password } });
  expect(res.statusCode, res.body).toBe(201);
  bluesky = res.json<{ id: string }>().id;
  discord = (await createChannel(t, orgs.acme, 'discord', { name: 'Acme Discord' })).id;
  // a Bluesky channel waiting for a reconnect: its platform cannot be asked, and a comma and quotes for the CSV
  stale = (await createChannel(t, orgs.acme, 'bluesky', { name: '=Acme "old", archive', refreshNeeded: true })).id;
  await createChannel(t, orgs.beta, 'discord', { name: 'Beta Discord' });

  for (const content of ['<p>Spring sale &amp; more</p>', '<p>Doors open at nine</p>', '<p>Thanks for coming</p>']) {
    const r = await call(t.app, orgs.acme.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'now', date: new Date(clock.now()).toISOString(), shortLink: false, tags: [], posts: [{ integration: { id: bluesky }, value: [{ content, image: [] }] }] },
    });
    expect(r.statusCode, r.body).toBe(201);
    posted.push(r.json<{ postId: string }[]>()[0]!.postId);
  }
  for (const id of posted) {
    await waitFor(async () => (await get(orgs.acme.apiKey, `/posts/${id}`)).json<{ state: string }>().state === 'PUBLISHED', 20_000, `post ${id} published`);
  }
  // the audience reacts: likes and reposts on the simulated records
  const [sale, doors, thanks] = sky.records;
  Object.assign(sale!, { likeCount: 7, repostCount: 2 });
  Object.assign(doors!, { likeCount: 1 });
  Object.assign(thanks!, { likeCount: 3, quoteCount: 1 });
}, 60_000);

describe('GET /analytics/overview', () => {
  it('counts each channel’s posts, reports engagement from the posts, null for what is not reported, and names the best and worst post', async () => {
    const res = await get(orgs.acme.apiKey, '/analytics/overview?days=7');
    expect(res.statusCode, res.body).toBe(200);
    const o = res.json<AnalyticsOverview>();
    expect(o.days).toBe(7);
    expect(Date.parse(o.to) - Date.parse(o.from)).toBe(7 * 86_400_000);
    const byId = new Map(o.channels.map((c) => [c.id, c]));
    expect(o.channels).toHaveLength(3);
    expect(byId.get(bluesky)).toMatchObject({ name: ACCOUNT.displayName, identifier: 'bluesky', platform: 'Bluesky', posts: 3, reach: null, impressions: null, engagement: 9 + 1 + 4, engagementFrom: 'posts', unavailable: null });
    expect(byId.get(discord)).toMatchObject({ identifier: 'discord', posts: 0, reach: null, impressions: null, engagement: null, engagementFrom: null, unavailable: null });
    expect(byId.get(stale)).toMatchObject({ posts: 0, engagement: null, unavailable: expect.stringContaining('reconnect') });
    expect(o.best).toMatchObject({ id: posted[0], integrationId: bluesky, excerpt: 'Spring sale & more', engagement: 9, releaseURL: expect.stringMatching(/^https:\/\/bsky\.app\/profile\//) });
    expect(o.worst).toMatchObject({ id: posted[1], excerpt: 'Doors open at nine', engagement: 1 });
    expect(o.postsMeasured).toBe(3);
  });

  it('another organisation sees only its own channels', async () => {
    const o = (await get(orgs.beta.apiKey, '/analytics/overview?days=30')).json<AnalyticsOverview>();
    expect(o.channels.map((c) => c.name)).toEqual(['Beta Discord']);
    expect({ best: o.best, worst: o.worst, postsMeasured: o.postsMeasured }).toEqual({ best: null, worst: null, postsMeasured: 0 });
  });

  it('a bad or missing days is a 400 naming days; no key is a 401', async () => {
    for (const q of ['?days=14', '?days=abc', '?days=-7', '']) {
      const body = expectError(await get(orgs.acme.apiKey, `/analytics/overview${q}`), 400, 'VALIDATION_FAILED');
      expect(body.fields?.map((f) => f.path), q).toEqual(['days']);
      expectError(await get(orgs.acme.apiKey, `/analytics/overview.csv${q}`), 400, 'VALIDATION_FAILED');
    }
    expect((await get(undefined as unknown as string, '/analytics/overview?days=7')).statusCode).toBe(401);
  });
});

describe('GET /analytics/overview.csv', () => {
  it('answers text/csv: a header row, one row per channel, quoted where needed, "not reported" instead of 0', async () => {
    const res = await get(orgs.acme.apiKey, '/analytics/overview.csv?days=30');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="analytics-overview-30-days.csv"');
    const lines = res.body.split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1)).toEqual([
      'Channel,Platform,Posts published,Reach,Impressions,Engagement,Note',
      `${ACCOUNT.displayName},Bluesky,3,not reported,not reported,14,`,
      'Acme Discord,Discord,0,not reported,not reported,not reported,',
      expect.stringMatching(/^"'=Acme ""old"", archive",Bluesky,0,not reported,not reported,not reported,.*reconnect/),
    ]);
  });
});

describe('the period', () => {
  it('follows the clock: eight days on, the last 7 days hold no posts, the last 30 still hold them', async () => {
    clock.advance(8 * 86_400_000);
    const week = (await get(orgs.acme.apiKey, '/analytics/overview?days=7')).json<AnalyticsOverview>();
    expect(week.channels.find((c) => c.id === bluesky)).toMatchObject({ posts: 0, engagement: null });
    expect(week.best).toBeNull();
    const month = (await get(orgs.acme.apiKey, '/analytics/overview?days=30')).json<AnalyticsOverview>();
    expect(month.channels.find((c) => c.id === bluesky)).toMatchObject({ posts: 3, engagement: 14 });
  });
});
