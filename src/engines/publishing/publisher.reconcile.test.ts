import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../lib/clock.js';
import { BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO, startBlueskySimulator, type BlueskySimulator } from '../../platforms/bluesky/bluesky.simulator.js';
import { advanceTime, eventsOf, realtimeManualClock, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, type TestApp, type TestOrg } from '../../../test/helpers.js';

/**
 * Reconciliation reads the platform's authoritative record, not a listing that lags behind it
 * (API.md §6 "never publish the same post twice"). Bluesky's AppView indexes a new post from the
 * firehose a moment after the PDS stored it; the simulator's author feed lags the same way (here
 * by ten minutes, so the test cannot race it). An attempt that timed out after its createRecord
 * reached the PDS must be found in the repo and recorded, not sent again.
 */

const ACCOUNT = { handle: 'acme.bsky.social', did: 'did:plc:acmereconcile1', password: 'app-pass-1234', displayName: 'Acme on Bluesky' };
const SLOW_MS = 2500;
const CREATE = '/xrpc/com.atproto.repo.createRecord';

interface PostView {
  id: string;
  state: 'QUEUE' | 'PUBLISHED' | 'ERROR' | 'DRAFT';
  error: string | null;
  releaseId: string | null;
  releaseURL: string | null;
  attempts: number;
  nextAttemptAt: string | null;
}

let sky: BlueskySimulator;
let t: TestApp;
let clock: ManualClock;

beforeAll(async () => {
  sky = await startBlueskySimulator({ appViewLagMs: 10 * 60_000 });
  sky.addAccount(ACCOUNT);
});

afterAll(async () => {
  await sky?.close();
});

beforeEach(async () => {
  clock = realtimeManualClock();
  t = await buildTestApp({
    // The attempt gives up after 1 s while the PDS takes 2.5 s: the request has left.
    env: {
      PLATFORM_ORIGINS: [BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO].map((o) => `${o}=${sky.origin}`).join(','),
      PUBLISH_ATTEMPT_TIMEOUT_SECONDS: '1',
      PUBLISH_RETRY_BASE_SECONDS: '30',
    },
    clock,
    startWorker: true,
  });
});

afterEach(async () => {
  sky.setLatency(0);
  await t?.close();
});

async function getPost(org: TestOrg, id: string): Promise<PostView> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostView>();
}

async function postWhen(org: TestOrg, id: string, what: string, check: (p: PostView) => boolean): Promise<PostView> {
  let last: PostView | undefined;
  try {
    return await waitFor(async () => {
      last = await getPost(org, id);
      return check(last) ? last : undefined;
    }, 20_000, `post ${what}`);
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: e });
  }
}

describe('publisher: reconciling Bluesky while the AppView lags', () => {
  it('the post the interrupted createRecord made is found in the repo and recorded; it is sent once', async () => {
    const org = await t.createOrg('Sky reconcile');
    const connected = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/bluesky', payload: { identifier: ACCOUNT.handle, password: ACCOUNT.password } });
    expect(connected.statusCode, connected.body).toBe(201);
    const channel = connected.json<{ id: string }>().id;
    const mine = () => sky.records.filter((r) => r.did === ACCOUNT.did);
    const creates = () => sky.log.filter((r) => r.method === 'POST' && r.path === CREATE);
    const before = creates().length;

    sky.setLatency(SLOW_MS);
    let id: string;
    try {
      const res = await call(t.app, org.apiKey, {
        method: 'POST',
        url: '/public/v1/posts',
        payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channel }, value: [{ content: '<p>Arrived while we looked away</p>', image: [] }] }] },
      });
      expect(res.statusCode, res.body).toBe(201);
      id = res.json<{ postId: string }[]>()[0]!.postId;
      await waitFor(async () => creates().length > before, 15_000, 'the createRecord request to reach the PDS');
    } finally {
      sky.setLatency(0);
    }
    // The PDS stores the post after the client gave up.
    await waitFor(async () => mine().length === 1, 15_000, 'the PDS to store the post');
    const checking = await postWhen(org, id, 'waiting to ask Bluesky', (p) => p.state === 'QUEUE' && (p.error ?? '').includes('was interrupted'));
    expect(checking.error).toMatch(/^Attempt 1 was interrupted \(.+\); checking with Bluesky \(.+\) at .+ whether it arrived$/);

    await advanceTime(t, clock, Date.parse(checking.nextAttemptAt!) - clock.now() + 1000);
    const done = await postWhen(org, id, 'PUBLISHED or ERROR', (p) => p.state === 'PUBLISHED' || p.state === 'ERROR');

    // The AppView still had not indexed it when the publisher asked: only the repo knew.
    const feed = await fetch(`${sky.origin}/xrpc/app.bsky.feed.getAuthorFeed?actor=${ACCOUNT.did}`).then((r) => r.json() as Promise<{ feed: unknown[] }>);
    expect(feed.feed).toEqual([]);

    const record = mine()[0]!;
    expect(done).toMatchObject({
      state: 'PUBLISHED',
      error: null,
      attempts: 1,
      releaseId: record.uri,
      releaseURL: `https://bsky.app/profile/${ACCOUNT.handle}/post/${record.rkey}`,
    });
    expect(record.text).toBe('Arrived while we looked away');
    expect(creates().length - before).toBe(1);
    expect(mine()).toHaveLength(1);
    expect(sky.log.some((r) => r.path.startsWith('/xrpc/com.atproto.repo.listRecords?'))).toBe(true);
    const events = (await eventsOf(t, org.id)).filter((e) => e.type === 'post.published' || e.type === 'post.failed');
    expect(events.map((e) => e.type)).toEqual(['post.published']);
  }, 60_000);
});
