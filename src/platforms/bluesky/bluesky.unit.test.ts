import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runPlatformContract } from '../../../test/platform-contract.js';
import { PlatformError, type ConnectedAccount, type PublishItem } from '../platform.js';
import { BSKY_ENTRYWAY, BSKY_PDS, type BlueskySimulator } from './bluesky.simulator.js';
import { ALICE, blueskySimulator, LOGIN, lookupIn, originsFor, published, type TestCtx, withBluesky } from './bluesky.testkit.js';
import { blueskyPostUrl } from './client.js';
import { blueskyError } from './errors.js';
import { createBlueskyAdapter, newTid, tidTime } from './index.js';

const adapter = createBlueskyAdapter();

runPlatformContract({
  name: 'bluesky',
  adapter,
  errorsIn200: false,
  async setup() {
    const sim = await blueskySimulator();
    return {
      origins: originsFor(sim),
      injectKind: (k) => sim.injectKind(k),
      connect: (ctx) => adapter.connectWithCredentials!(LOGIN, ctx),
      lookup: lookupIn(sim),
      expireToken: () => sim.expireAccessTokens(),
      close: () => sim.close(),
    };
  },
});

describe('bluesky specifics', () => {
  const post = (ctx: TestCtx, account: ConnectedAccount, content: string, extra: { media?: PublishItem['media']; replyTo?: { id: string; rootId: string } } = {}) =>
    adapter.publish({ item: { content, media: extra.media ?? [] }, settings: {}, replyTo: extra.replyTo, idempotencyKey: content }, { ...ctx, credentials: account.credentials });

  const sessionCalls = (sim: BlueskySimulator) => sim.log.filter((r) => r.path.includes('com.atproto.server.createSession')).length;

  it('connects with the DID, profile and the PDS from the DID document, and reuses the session for every post', async () => {
    await withBluesky(async (sim, ctx) => {
      const account = await adapter.connectWithCredentials!({ ...LOGIN, identifier: '@Alice.bsky.social' }, ctx);
      expect(account).toMatchObject({ internalId: ALICE.did, name: 'Alice', profile: ALICE.handle, picture: expect.stringContaining('cdn.bsky.app') });
      expect(account.credentials).toMatchObject({ service: BSKY_ENTRYWAY, pds: BSKY_PDS, identifier: 'Alice.bsky.social', did: ALICE.did });
      // The simulator's access JWT says it expires in 2 h; expiresAt is read from it.
      expect(Math.abs(account.expiresAt!.getTime() - (Date.now() + 2 * 3600_000))).toBeLessThan(5000);
      for (const n of [1, 2, 3]) published(await post(ctx, account, `<p>post ${n}</p>`));
      expect(sessionCalls(sim)).toBe(1);
      expect(sim.records).toHaveLength(3);
    });
  });

  it('names the refused field: the password, or the identifier when no account has the handle', async () => {
    await withBluesky(async (_sim, ctx) => {
      const bad = (await adapter.connectWithCredentials!({ ...LOGIN, password: 'wrong' }, ctx).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: bad.kind, field: bad.details.field, code: bad.details.platformCode }).toEqual({ kind: 'rejected', field: 'password', code: 'AuthenticationRequired' });
      expect(bad.message).toMatch(/Invalid identifier or password/);
      const unknown = (await adapter.connectWithCredentials!({ ...LOGIN, identifier: 'nobody.bsky.social' }, ctx).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: unknown.kind, field: unknown.details.field }).toEqual({ kind: 'rejected', field: 'identifier' });
    });
  });

  it('writes facets with UTF-8 byte offsets: emoji before a link, resolved mentions, hashtags', async () => {
    await withBluesky(async (sim, ctx) => {
      const account = await adapter.connectWithCredentials!(LOGIN, ctx);
      const text = '🦋 Read https://example.com/a?b=1. Thanks @bob.bsky.social and @ghost.bsky.social! #Tidings #2024';
      const r = published(await post(ctx, account, `<p>${text}</p>`));
      const record = sim.find(r.id)!;
      expect(record.text).toBe(text);
      const bytes = Buffer.from(text, 'utf8');
      const facets = record.facets as { index: { byteStart: number; byteEnd: number }; features: Record<string, string>[] }[];
      const spans = facets.map((f) => [bytes.subarray(f.index.byteStart, f.index.byteEnd).toString('utf8'), f.features[0]]);
      expect(spans).toEqual([
        ['https://example.com/a?b=1', { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/a?b=1' }],
        ['@bob.bsky.social', { $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:bob5bd6ufz2a7k' }],
        ['#Tidings', { $type: 'app.bsky.richtext.facet#tag', tag: 'Tidings' }],
      ]);
      // The butterfly is 4 UTF-8 bytes but 2 UTF-16 units: the link starts at byte 10, not 8.
      expect(facets[0]!.index).toEqual({ byteStart: 10, byteEnd: 35 });
      // Both handles were looked up; the unknown one stayed plain text.
      expect(sim.log.filter((l) => l.path.includes('resolveHandle')).map((l) => l.path)).toEqual([
        expect.stringContaining('handle=bob.bsky.social'),
        expect.stringContaining('handle=ghost.bsky.social'),
      ]);
    });
  });

  it('threads replies: the root stays the first post, the parent is the previous one', async () => {
    await withBluesky(async (sim, ctx) => {
      const account = await adapter.connectWithCredentials!(LOGIN, ctx);
      const first = published(await post(ctx, account, '<p>one</p>'));
      const second = published(await post(ctx, account, '<p>two</p>', { replyTo: { id: first.id, rootId: first.id } }));
      const third = published(await post(ctx, account, '<p>three</p>', { replyTo: { id: second.id, rootId: first.id } }));
      const [a, b, c] = [first, second, third].map((p) => sim.find(p.id)!);
      expect(b!.reply).toEqual({ root: { uri: a!.uri, cid: a!.cid }, parent: { uri: a!.uri, cid: a!.cid } });
      expect(c!.reply).toEqual({ root: { uri: a!.uri, cid: a!.cid }, parent: { uri: b!.uri, cid: b!.cid } });
      expect(third.url).toBe(`https://bsky.app/profile/${ALICE.handle}/post/${c!.rkey}`);
    });
  });

  it('uploads images as raw bytes with alt text and aspect ratio', async () => {
    await withBluesky(async (sim, ctx) => {
      const account = await adapter.connectWithCredentials!(LOGIN, ctx);
      const bytes = Buffer.from('not really a jpeg, but bytes all the same');
      ctx.media.set('m1', new Blob([bytes], { type: 'image/jpeg' }));
      const r = published(
        await post(ctx, account, '<p>pic</p>', { media: [{ id: 'm1', path: '/m1.jpg', type: 'image', mimeType: 'image/jpeg', size: bytes.length, width: 1200, height: 800, alt: 'A cat' }] }),
      );
      const record = sim.find(r.id)!;
      expect(record.media.map((m) => m.sha256)).toEqual([createHash('sha256').update(bytes).digest('hex')]);
      expect(record.embed).toMatchObject({
        $type: 'app.bsky.embed.images',
        images: [{ alt: 'A cat', aspectRatio: { width: 1200, height: 800 }, image: { $type: 'blob', mimeType: 'image/jpeg', size: bytes.length } }],
      });
      const upload = sim.log.find((l) => l.path.includes('uploadBlob'))!;
      expect(upload.headers['content-type']).toBe('image/jpeg');
    });
  });

  it('publishes a video through the video service: pending, then checkPublish creates the post once', async () => {
    await withBluesky(async (sim, ctx) => {
      const account = await adapter.connectWithCredentials!(LOGIN, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const bytes = Buffer.from('ftyp-mp4-ish bytes');
      ctx.media.set('v1', new Blob([bytes], { type: 'video/mp4' }));
      sim.configureVideo({ polls: 1 });
      const started = await post(ctx, account, '<p>clip</p>', { media: [{ id: 'v1', path: '/v1.mp4', type: 'video', mimeType: 'video/mp4', size: bytes.length, width: 1080, height: 1920 }] });
      if (started.status !== 'pending') throw new Error('expected pending');
      const auth = sim.log.find((l) => l.path.includes('getServiceAuth'))!;
      expect(auth.path).toContain(`aud=${encodeURIComponent(`did:web:${new URL(BSKY_PDS).hostname}`)}`);
      expect(await adapter.checkPublish!(started.token, c)).toEqual({ status: 'pending', token: started.token });
      const done = published(await adapter.checkPublish!(started.token, c));
      const record = sim.find(done.id)!;
      expect(record.embed).toMatchObject({ $type: 'app.bsky.embed.video', aspectRatio: { width: 1080, height: 1920 } });
      expect(record.media.map((m) => m.sha256)).toEqual([createHash('sha256').update(bytes).digest('hex')]);
      // A check retried after that success finds the post under its key instead of posting again.
      expect(await adapter.checkPublish!(started.token, c)).toEqual(done);
      expect(sim.records).toHaveLength(1);
    });
  });

  it('reports a failed video job as rejected', async () => {
    await withBluesky(async (sim, ctx) => {
      const account = await adapter.connectWithCredentials!(LOGIN, ctx);
      ctx.media.set('v1', new Blob([Buffer.from('x')], { type: 'video/mp4' }));
      sim.configureVideo({ polls: 0, failWith: 'Video is too long' });
      const err = (await post(ctx, account, '<p>clip</p>', { media: [{ id: 'v1', path: '/v1.mp4', type: 'video', mimeType: 'video/mp4', size: 1 }] }).then((r) =>
        r.status === 'pending' ? adapter.checkPublish!(r.token, { ...ctx, credentials: account.credentials }) : r,
      ).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: expect.stringContaining('Video is too long') });
    });
  });

  it('refresh rotates the tokens, and falls back to one login when the refresh JWT has expired too', async () => {
    await withBluesky(async (sim, ctx) => {
      const account = await adapter.connectWithCredentials!(LOGIN, ctx);
      const rotated = await adapter.refresh!({ ...ctx, credentials: account.credentials });
      expect(rotated.credentials.refreshJwt).not.toBe(account.credentials.refreshJwt);
      expect(sessionCalls(sim)).toBe(1);

      sim.expireAccessTokens({ refresh: true });
      const expired = (await post(ctx, { ...account, credentials: rotated.credentials }, '<p>late</p>').catch((e: unknown) => e)) as PlatformError;
      expect(expired.kind).toBe('auth_expired');
      const relogged = await adapter.refresh!({ ...ctx, credentials: rotated.credentials });
      expect(sessionCalls(sim)).toBe(2);
      published(await post(ctx, { ...account, credentials: relogged.credentials }, '<p>back</p>'));
    });
  });

  it('asks for a reconnect when the stored app password was revoked', async () => {
    await withBluesky(async (sim, ctx) => {
      const account = await adapter.connectWithCredentials!(LOGIN, ctx);
      sim.expireAccessTokens({ refresh: true });
      sim.addAccount({ ...ALICE, password: 'revoked-and-replaced' });
      const err = (await adapter.refresh!({ ...ctx, credentials: account.credentials }).catch((e: unknown) => e)) as PlatformError;
      expect(err.kind).toBe('reconnect_required');
    });
  });

  it('finds recent own posts newest first and reads analytics', async () => {
    await withBluesky(async (_sim, ctx) => {
      const account = await adapter.connectWithCredentials!(LOGIN, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const since = new Date(Date.now() - 60_000);
      const a = published(await post(ctx, account, '<p>older</p>'));
      const b = published(await post(ctx, account, '<p>newer</p>'));
      const recent = await adapter.findRecent!({ since, limit: 10 }, c);
      expect(recent.map((r) => [r.id, r.content])).toEqual([
        [b.id, 'newer'],
        [a.id, 'older'],
      ]);
      expect(recent[0]!.url).toBe(b.url);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 10 }, c)).toEqual([]);

      const channel = await adapter.analytics!(7, c);
      expect(channel.map((s) => [s.label, s.data[0]!.total])).toEqual([
        ['Followers', 12],
        ['Following', 3],
        ['Posts', 2],
      ]);
      const figures = await adapter.postAnalytics!(a.id, 7, c);
      expect(figures.map((s) => s.label)).toEqual(['Likes', 'Reposts', 'Replies', 'Quotes']);
    });
  });

  it('findRecent reads the repo on the PDS: a post the AppView has not indexed yet is found (reconciliation must not miss it)', async () => {
    await withBluesky(async (sim, ctx) => {
      sim.setAppViewLag(10 * 60_000);
      const account = await adapter.connectWithCredentials!(LOGIN, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const since = new Date(Date.now() - 60_000);
      const made = published(await post(ctx, account, '<p>just made</p>'));
      const reply = published(await post(ctx, account, '<p>and its reply</p>', { replyTo: { id: made.id, rootId: made.id } }));
      // The AppView's author feed does not list them yet…
      const feed = await fetch(`${sim.origin}/xrpc/app.bsky.feed.getAuthorFeed?actor=${ALICE.did}`).then((r) => r.json() as Promise<{ feed: unknown[] }>);
      expect(feed.feed).toEqual([]);
      // …the repo has them, newest first, replies included.
      const recent = await adapter.findRecent!({ since, limit: 10 }, c);
      expect(recent.map((r) => [r.id, r.content, r.url])).toEqual([
        [reply.id, 'and its reply', reply.url],
        [made.id, 'just made', made.url],
      ]);
      const listings = sim.log.filter((r) => r.path.includes('/xrpc/'));
      expect(listings.some((r) => r.path.startsWith('/xrpc/com.atproto.repo.listRecords?') && r.path.includes('collection=app.bsky.feed.post'))).toBe(true);
      expect(listings.some((r) => r.path.includes('getAuthorFeed') && r.headers.authorization)).toBe(false);
      // Once indexed, the AppView shows them too (the simulator's lag is only a lag).
      sim.indexAppView();
      const indexed = await fetch(`${sim.origin}/xrpc/app.bsky.feed.getAuthorFeed?actor=${ALICE.did}`).then((r) => r.json() as Promise<{ feed: unknown[] }>);
      expect(indexed.feed).toHaveLength(2);
    });
  });

  it('findRecent pages through the repo and stops at record keys older than `since`', async () => {
    await withBluesky(async (sim, ctx) => {
      const account = await adapter.connectWithCredentials!(LOGIN, ctx);
      const c = { ...ctx, credentials: account.credentials };
      for (let i = 0; i < 5; i++) published(await post(ctx, account, `<p>post ${i}</p>`));
      const mark = sim.log.length;
      const recent = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 50 }, c);
      expect(recent.map((r) => r.content)).toEqual(['post 4', 'post 3', 'post 2', 'post 1', 'post 0']);
      const two = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 2 }, c);
      expect(two.map((r) => r.content)).toEqual(['post 4', 'post 3']);
      expect(sim.log.slice(mark).filter((r) => r.path.includes('listRecords')).length).toBeGreaterThanOrEqual(2);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 10 }, c)).toEqual([]);
    });
  });

  it('reads the time a TID record key was made', () => {
    const at = Date.UTC(2025, 2, 3, 9, 0, 0, 123);
    expect(tidTime(newTid(at))).toBe(at);
    expect(tidTime('self')).toBeUndefined();
  });

  it('classifies XRPC errors by name before status', () => {
    const res = (status: number, error: string, headers: Record<string, string> = {}) => ({ status, headers, body: { error, message: `${error} happened` } });
    const now = Date.UTC(2026, 0, 1);
    expect(blueskyError(res(400, 'ExpiredToken'))?.kind).toBe('auth_expired');
    // A refused token may be cured by logging in again with the stored app password: refresh decides.
    expect(blueskyError(res(400, 'InvalidToken'))?.kind).toBe('auth_expired');
    expect(blueskyError(res(401, 'AuthenticationRequired'))?.kind).toBe('auth_expired');
    expect(blueskyError(res(400, 'AccountTakedown'))?.kind).toBe('reconnect_required');
    const limited = blueskyError(res(429, 'RateLimitExceeded', { 'ratelimit-reset': String(now / 1000 + 90) }), now);
    expect({ kind: limited?.kind, wait: limited?.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: 90 });
    expect(blueskyError(res(502, 'UpstreamFailure'))?.kind).toBe('transient');
    expect(blueskyError(res(400, 'InvalidRequest'))).toMatchObject({ kind: 'rejected', message: 'InvalidRequest happened', details: { platformCode: 'InvalidRequest' } });
    expect(blueskyError({ status: 200, headers: {}, body: {} })).toBeUndefined();
  });

  it('builds post URLs from the handle and the record key', () => {
    expect(blueskyPostUrl('alice.bsky.social', 'at://did:plc:abc/app.bsky.feed.post/3lbq7yzvjwk2c')).toBe('https://bsky.app/profile/alice.bsky.social/post/3lbq7yzvjwk2c');
    expect(() => blueskyPostUrl('a', 'https://bsky.app/x')).toThrow(PlatformError);
  });
});
