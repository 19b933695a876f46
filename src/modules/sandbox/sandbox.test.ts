import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { events, posts } from '../../db/schema/posts.js';
import { picture, platformApi, sha } from '../../../test/platform-api-kit.js';

/**
 * Sandbox channels through the HTTP API (issue 28): connect one, publish to it with the platform's
 * real adapter against the simulator inside Tidings, read it back in the feed, make it fail on purpose.
 */
const api = platformApi('telegram');

beforeAll(async () => {
  await api.start({ env: {} });
});
afterAll(() => api.close());

describe('a telegram sandbox channel', () => {
  let channelId: string;

  it('connects through POST /sandbox/channels: a sandbox channel named after the platform', async () => {
    const res = await api.call({ method: 'POST', url: '/public/v1/sandbox/channels', payload: { identifier: 'telegram' } });
    expect(res.statusCode, res.body).toBe(201);
    const channel = res.json<{ id: string; identifier: string; name: string; sandbox: boolean }>();
    expect(channel).toMatchObject({ identifier: 'telegram', sandbox: true });
    expect(channel.name).toMatch(/^Sandbox Telegram /);
    channelId = channel.id;
    expect((await api.channelRow(channelId)).sandbox).toBe(true);
  });

  it('publishes a photo and a reply, read back PUBLISHED with a t.me URL, and the feed shows them as Telegram holds them', async () => {
    const bytes = await picture(5);
    const photo = await api.upload(bytes, 'photo.png');
    const post = await api.publish(channelId, {}, [{ content: '<p><strong>Hello</strong> sandbox</p>', image: [{ id: photo.id, path: photo.path }] }, { content: '<p>a reply</p>' }], { thread: true });
    expect(post.releaseURL).toMatch(/^https:\/\/t\.me\/sandbox[0-9a-f]{8}\/\d+$/);
    const feed = await api.call({ method: 'GET', url: `/public/v1/sandbox/channels/${channelId}/feed` });
    expect(feed.statusCode, feed.body).toBe(200);
    const { items } = feed.json<{ items: { id: string; text: string; replyTo?: string; media: { sha256?: string }[]; post?: { id: string } }[] }>();
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({ id: post.releaseId, text: '<b>Hello</b> sandbox', post: { id: post.id } });
    expect(items[0]!.media.map((m) => m.sha256)).toEqual([sha(bytes)]);
    expect(items[1]).toMatchObject({ text: 'a reply', replyTo: items[0]!.id });
    // what webhooks receive says sandbox
    const written = await api.t.deps.database.db.select().from(events).where(eq(events.organizationId, api.org.id));
    const published = written.filter((e) => e.type === 'post.published').map((e) => e.payload as { integration: { id: string; sandbox?: boolean } });
    expect(published.length).toBeGreaterThan(0);
    expect(published.every((p) => p.integration.sandbox === true && p.integration.id === channelId)).toBe(true);
    expect(written.find((e) => e.type === 'integration.connected')!.payload).toMatchObject({ integration: { id: channelId, sandbox: true } });
  });

  it('a "rate_limited" fault is met by the next publish, which is retried after the wait and then published', async () => {
    const set = await api.call({ method: 'POST', url: `/public/v1/sandbox/channels/${channelId}/faults`, payload: { kind: 'rate_limited' } });
    expect(set.statusCode, set.body).toBe(200);
    const post = await api.publish(channelId, {}, [{ content: '<p>after the wait</p>' }]);
    expect(post.state).toBe('PUBLISHED');
    const row = await api.t.deps.database.db.select().from(posts).where(eq(posts.id, post.id));
    expect(row[0]!.attempts, 'the first attempt met the rate limit').toBeGreaterThanOrEqual(2);
  });

  it('a "revoked" fault marks the channel for reconnection; reconnecting the sandbox account brings it back', async () => {
    await api.call({ method: 'POST', url: `/public/v1/sandbox/channels/${channelId}/faults`, payload: { kind: 'revoked' } });
    const post = await api.settle(api.postIdOf(await api.createPost(channelId, {}, [{ content: '<p>after the kick</p>' }])));
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/bot was kicked/);
    expect((await api.listChannels()).find((i) => i.id === channelId)!.refreshNeeded).toBe(true);
    // the notification and the webhook event, as for a live channel
    const notes = await api.call({ method: 'GET', url: '/public/v1/notifications' });
    expect(notes.body).toMatch(/must be reconnected/);
    const written = await api.t.deps.database.db.select().from(events).where(eq(events.organizationId, api.org.id));
    expect(written.find((e) => e.type === 'integration.refresh_needed')!.payload).toMatchObject({ integration: { id: channelId, sandbox: true } });
    const again = await api.call({ method: 'POST', url: '/public/v1/sandbox/channels', payload: { identifier: 'telegram', refresh: channelId } });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ id: channelId, refreshNeeded: false, sandbox: true });
  });

  it('"duplicate" and "media_refused" faults: the next post is refused in Telegram\'s words, ERROR with post.failed', async () => {
    for (const kind of ['duplicate', 'media_refused']) {
      await api.call({ method: 'POST', url: `/public/v1/sandbox/channels/${channelId}/faults`, payload: { kind } });
      const post = await api.settle(api.postIdOf(await api.createPost(channelId, {}, [{ content: `<p>refused ${kind}</p>` }])));
      expect(post.state).toBe('ERROR');
      expect(post.error).toMatch(/Bad Request/);
    }
    const written = await api.t.deps.database.db.select().from(events).where(eq(events.organizationId, api.org.id));
    expect(written.filter((e) => e.type === 'post.failed').length).toBeGreaterThanOrEqual(2);
  });

  it('"down" for 2 minutes: posts wait and are retried (503), and publish once the platform is back', async () => {
    const down = await api.call({ method: 'POST', url: `/public/v1/sandbox/channels/${channelId}/faults`, payload: { kind: 'down', minutes: 2 } });
    expect(down.statusCode, down.body).toBe(200);
    expect(Date.parse(down.json<{ downUntil: string }>().downUntil) - api.clock.now()).toBe(2 * 60_000);
    const id = api.postIdOf(await api.createPost(channelId, {}, [{ content: '<p>while down</p>' }]));
    const waiting = await api.eventually(async () => {
      const p = await api.getPost(id);
      return p.state === 'QUEUE' && p.nextAttemptAt && Date.parse(p.nextAttemptAt) > api.clock.now() ? p : undefined;
    }, 'a failed first attempt waiting for its retry');
    expect(waiting.error).toMatch(/Attempt 1 failed \(503 Service Temporarily Unavailable/);
    // the clock moves on, retries after the outage go through
    const post = await api.settle(id, { timeoutMs: 40_000 });
    expect(post.state).toBe('PUBLISHED');
    const after = await api.call({ method: 'GET', url: `/public/v1/sandbox/channels/${channelId}/faults` });
    expect(after.json()).toEqual({ downUntil: null, slowUntil: null, slowSeconds: null });
  });

  it('"slow" is reported until ended', async () => {
    const slow = await api.call({ method: 'POST', url: `/public/v1/sandbox/channels/${channelId}/faults`, payload: { kind: 'slow', minutes: 3, delaySeconds: 1 } });
    expect(slow.json()).toMatchObject({ slowSeconds: 1, downUntil: null });
    const ended = await api.call({ method: 'DELETE', url: `/public/v1/sandbox/channels/${channelId}/faults` });
    expect(ended.json()).toEqual({ downUntil: null, slowUntil: null, slowSeconds: null });
  });

  it('bad input names the field', async () => {
    const res = await api.call({ method: 'POST', url: '/public/v1/sandbox/channels', payload: { identifier: 'myspace' } });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ fields: { path: string }[] }>().fields.map((f) => f.path)).toEqual(['identifier']);
    const fault = await api.call({ method: 'POST', url: `/public/v1/sandbox/channels/${channelId}/faults`, payload: { kind: 'meteor' } });
    expect(fault.statusCode).toBe(400);
    expect(fault.json<{ fields: { path: string }[] }>().fields.map((f) => f.path)).toEqual(['kind']);
  });
});

describe('a mastodon sandbox channel in two organisations', () => {
  it('each organisation connects and publishes: its own simulator gets an app of its own (the instance app stored by the first is checked and registered again)', async () => {
    const other = await api.t.createOrg('Second');
    for (const apiKey of [undefined, other.apiKey]) {
      const call = (opts: { method: 'GET' | 'POST'; url: string; payload?: unknown }) =>
        apiKey ? api.t.app.inject({ ...opts, headers: { authorization: apiKey } } as never) : api.call(opts as never);
      const res = await call({ method: 'POST', url: '/public/v1/sandbox/channels', payload: { identifier: 'mastodon' } });
      expect(res.statusCode, res.body).toBe(201);
      const channel = res.json<{ id: string }>();
      const created = await call({
        method: 'POST',
        url: '/public/v1/posts',
        payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channel.id }, value: [{ content: '<p>Hello from a sandbox toot</p>', image: [] }], settings: {} }] },
      });
      expect(created.statusCode, created.body).toBe(201);
      const feedHas = async () => {
        const feed = await call({ method: 'GET', url: `/public/v1/sandbox/channels/${channel.id}/feed` });
        return feed.json<{ items: { text: string }[] }>().items.some((i) => i.text.includes('Hello from a sandbox toot'));
      };
      for (let i = 0; i < 100 && !(await feedHas()); i++) {
        await api.releaseDueJobs();
        await new Promise((r) => setTimeout(r, 100));
      }
      const post = await call({ method: 'GET', url: `/public/v1/posts/${created.json<{ postId: string }[]>()[0]!.postId}` });
      const feed = await call({ method: 'GET', url: `/public/v1/sandbox/channels/${channel.id}/feed` });
      expect(await feedHas(), `${apiKey ? 'second' : 'first'}: ${post.body.slice(0, 600)} ${feed.body.slice(0, 300)}`).toBe(true);
    }
  });
});
