import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO, startBlueskySimulator, type BlueskySimulator } from '../../platforms/bluesky/bluesky.simulator.js';
import { createChannel, realtimeManualClock, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, type TestApp, type TestOrg } from '../../../test/helpers.js';

/**
 * What `GET /posts/{id}` reports once the publisher is done: how many attempts it took, and a
 * failure in words a person can act on (never a bare system code such as `ENOTFOUND`).
 */

const ACCOUNT = { handle: 'acme.bsky.social', did: 'did:plc:acmereport1', password: 'app-pass-1234', displayName: 'Acme on Bluesky' };

interface PostView {
  id: string;
  state: 'QUEUE' | 'PUBLISHED' | 'ERROR' | 'DRAFT';
  error: string | null;
  attempts: number;
  releaseId: string | null;
  thread: { state: string; releaseId: string | null }[];
}

let sky: BlueskySimulator;
let t: TestApp;
let org: TestOrg;
let skyChannel: string;

beforeAll(async () => {
  sky = await startBlueskySimulator();
  sky.addAccount(ACCOUNT);
  t = await buildTestApp({
    env: {
      PLATFORM_ORIGINS: [
        ...[BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO].map((o) => `${o}=${sky.origin}`),
        // Telegram's API host, sent to a host that does not exist (a typo in the operator's mapping, a DNS outage)
        'https://api.telegram.org=http://no-such-host.invalid',
      ].join(','),
      PUBLISH_MAX_ATTEMPTS: '2',
      PUBLISH_RETRY_FIRST_SECONDS: '1',
    },
    clock: realtimeManualClock(),
    startWorker: true,
  });
  org = await t.createOrg('Reports');
  const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/bluesky', payload: { identifier: ACCOUNT.handle, password: ACCOUNT.password } });
  expect(res.statusCode, res.body).toBe(201);
  skyChannel = res.json<{ id: string }>().id;
});

afterAll(async () => {
  await t?.close();
  await sky?.close();
});

async function postNow(integration: string, items: { content: string; delay?: number }[]): Promise<string> {
  const res = await call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: integration }, value: items.map((i) => ({ image: [], ...i })) }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ postId: string }[]>()[0]!.postId;
}

async function settled(id: string, done: (p: PostView) => boolean): Promise<PostView> {
  return waitFor(async () => {
    const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json<PostView>();
    return done(p) ? p : undefined;
  }, 20_000, `post ${id} to settle`);
}

describe('post detail after publishing', () => {
  it('a post published on its first try reports 1 attempt; so does a thread whose every item went on its first try', async () => {
    const single = await settled(await postNow(skyChannel, [{ content: '<p>Just once</p>' }]), (p) => p.state !== 'QUEUE');
    expect(single).toMatchObject({ state: 'PUBLISHED', error: null, attempts: 1 });

    const threadId = await postNow(skyChannel, [{ content: '<p>First of two</p>' }, { content: '<p>Second of two</p>', delay: 0 }]);
    const thread = await settled(threadId, (p) => p.thread[0]?.state === 'PUBLISHED' || p.state === 'ERROR');
    expect(thread).toMatchObject({ state: 'PUBLISHED', error: null, attempts: 1 });
    expect(thread.thread).toHaveLength(1);
    // each was sent exactly once
    const creates = sky.log.filter((r) => r.method === 'POST' && r.path === '/xrpc/com.atproto.repo.createRecord');
    expect(creates).toHaveLength(3);
    expect(sky.records.map((r) => r.text)).toEqual(['Just once', 'First of two', 'Second of two']);
  });

  it('a platform host that cannot be found fails in words naming the host, not ENOTFOUND', async () => {
    const channel = await createChannel(t, org, 'telegram', { name: 'Nowhere News', credentials: { botToken: '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ', chatId: '-1001000000009', username: 'nowhere' } });
    const failed = await settled(await postNow(channel.id, [{ content: '<p>Into the void</p>' }]), (p) => p.state === 'ERROR' || p.state === 'PUBLISHED');
    expect(failed.state).toBe('ERROR');
    expect(failed.attempts).toBe(2);
    expect(failed.error).toBe(
      'Telegram (Nowhere News) could not be reached after 2 attempts: Could not find the host no-such-host.invalid (DNS lookup failed: no such host); PLATFORM_ORIGINS sends api.telegram.org there',
    );
    expect(failed.error).not.toMatch(/ENOTFOUND|EAI_AGAIN|getaddrinfo/);
  });
});

describe('a failure after a single attempt', () => {
  let one: TestApp;
  afterAll(async () => one?.close());

  it('says "1 attempt", not "1 attempts"', async () => {
    one = await buildTestApp({
      env: { PLATFORM_ORIGINS: 'https://api.telegram.org=http://no-such-host.invalid', PUBLISH_MAX_ATTEMPTS: '1' },
      clock: realtimeManualClock(),
      startWorker: true,
    });
    const acme = await one.createOrg('Once');
    const channel = await createChannel(one, acme, 'telegram', { name: 'Once News', credentials: { botToken: '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ', chatId: '-1001000000010', username: 'once' } });
    const res = await call(one.app, acme.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channel.id }, value: [{ content: '<p>Once</p>', image: [] }] }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ postId: string }[]>()[0]!.postId;
    const failed = await waitFor(async () => {
      const p = (await call(one.app, acme.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` })).json<PostView>();
      return p.state === 'ERROR' ? p : undefined;
    }, 20_000, 'the post to fail');
    expect(failed.attempts).toBe(1);
    expect(failed.error).toMatch(/^Telegram \(Once News\) could not be reached after 1 attempt: Could not find the host no-such-host\.invalid/);
  });
});
