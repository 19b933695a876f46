import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contractMediaHost, contractMediaOrigins, platformFailure, runSimulatorContract, type ContractMediaHost } from '../common/unit.testkit.js';
import { withCreds } from '../common/platform.testkit.js';
import type { ConnectedAccount } from '../platform.js';
import { neynarError } from './errors.js';
import { castUrl, idemOf } from './client.js';
import { createWrapcastAdapter } from './index.js';
import { NEYNAR_APP_ORIGIN } from './wrapcast.simulator.js';
import { ALICE, image, MEDIA_ORIGIN, NEYNAR_APP, originsFor, picture, PRO, sha, signIn, withWrapcast, wrapcastSimulator, type TestCtx } from './wrapcast.testkit.js';

const app = { clientId: NEYNAR_APP.clientId, clientSecret: NEYNAR_APP.apiKey };
const adapter = createWrapcastAdapter({ app });

// Farcaster embeds pictures by URL: the contract's media item (`https://media.example/1.png`) is
// served by a tiny host that the simulator really fetches from and hashes.
runSimulatorContract({
  name: 'wrapcast',
  adapter,
  errorsIn200: true,
  host: contractMediaHost,
  start: (host: ContractMediaHost) => wrapcastSimulator({ mediaOrigins: contractMediaOrigins(host) }),
  origins: originsFor,
  connect: (sim, ctx) => signIn(adapter, ctx, (u) => u.replace(NEYNAR_APP_ORIGIN, sim.origin)),
});

const cast = (ctx: TestCtx, account: ConnectedAccount, content: string, opts: { settings?: Record<string, unknown>; media?: ReturnType<typeof image>[]; key?: string; replyTo?: string } = {}) =>
  adapter.publish(
    {
      item: { content, media: opts.media ?? [] },
      settings: opts.settings ?? {},
      idempotencyKey: opts.key ?? `key-${content}`,
      ...(opts.replyTo ? { replyTo: { id: opts.replyTo, rootId: opts.replyTo } } : {}),
    },
    withCreds(ctx, account),
  );
const posts = (sim: { log: { method: string; path: string }[] }) => sim.log.filter((l) => l.method === 'POST' && l.path === '/v2/farcaster/cast').length;

describe('wrapcast: Sign in with Neynar', () => {
  it('comes back with an approved signer of our app; the fid is the account id; no expiry', async () => {
    await withWrapcast(new Map(), async (sim, ctx, rewrite) => {
      const begun = await adapter.beginConnect!({ state: 's1', redirectUri: 'https://tidings.example/integrations/social/wrapcast/callback' }, ctx);
      const url = new URL(begun.url);
      expect(`${url.origin}${url.pathname}`).toBe('https://app.neynar.com/login');
      expect(url.searchParams.get('client_id')).toBe(NEYNAR_APP.clientId);
      expect(url.searchParams.get('redirect_uri')).toBe('https://tidings.example/integrations/social/wrapcast/callback?state=s1');
      const account = await signIn(adapter, ctx, rewrite);
      expect(account).toMatchObject({ internalId: String(ALICE.fid), name: ALICE.display_name, profile: ALICE.username, picture: ALICE.pfp_url, expiresAt: null });
      expect(account.credentials).toEqual({ signerUuid: expect.any(String), fid: ALICE.fid, username: ALICE.username, pro: false });
      expect(sim.signers.get(account.credentials.signerUuid as string)).toMatchObject({ status: 'approved', apiKey: NEYNAR_APP.apiKey });
      // every API call carried the API key
      expect(sim.log.filter((l) => l.path.startsWith('/v2/')).every((l) => l.headers['x-api-key'] === NEYNAR_APP.apiKey)).toBe(true);
    });
  });

  it('refuses a signer that is not approved, of another app, or of another fid', async () => {
    await withWrapcast(new Map(), async (sim, ctx) => {
      sim.signers.set('8f7c1c39-0d38-4d5e-9a52-6a0b1b7f7f01', { signer_uuid: '8f7c1c39-0d38-4d5e-9a52-6a0b1b7f7f01', apiKey: NEYNAR_APP.apiKey, fid: ALICE.fid, status: 'pending_approval', public_key: '0x00' });
      sim.signers.set('8f7c1c39-0d38-4d5e-9a52-6a0b1b7f7f02', { signer_uuid: '8f7c1c39-0d38-4d5e-9a52-6a0b1b7f7f02', apiKey: 'SOMEONE_ELSES_KEY', fid: ALICE.fid, status: 'approved', public_key: '0x00' });
      sim.signers.set('8f7c1c39-0d38-4d5e-9a52-6a0b1b7f7f03', { signer_uuid: '8f7c1c39-0d38-4d5e-9a52-6a0b1b7f7f03', apiKey: NEYNAR_APP.apiKey, fid: ALICE.fid, status: 'approved', public_key: '0x00' });
      const complete = (code: string, fid: string) => adapter.completeConnect!({ code, redirectUri: 'x', callbackParams: { fid } }, ctx);
      const pending = await platformFailure(complete('8f7c1c39-0d38-4d5e-9a52-6a0b1b7f7f01', String(ALICE.fid)));
      expect(pending).toMatchObject({ kind: 'rejected', message: expect.stringMatching(/not approved yet \(status: pending_approval\)/) });
      expect((await platformFailure(complete('8f7c1c39-0d38-4d5e-9a52-6a0b1b7f7f02', String(ALICE.fid)))).kind).toBe('rejected');
      expect((await platformFailure(complete('8f7c1c39-0d38-4d5e-9a52-6a0b1b7f7f03', String(PRO.fid)))).message).toMatch(/belongs to Farcaster account 6131/);
    });
  });

  it('the login page refuses an unknown client id and a redirect outside the authorised origins', async () => {
    await withWrapcast(new Map(), async (sim, ctx, rewrite) => {
      const other = createWrapcastAdapter({ app: { clientId: 'not-a-client', clientSecret: NEYNAR_APP.apiKey } });
      await expect(signIn(other, ctx, rewrite)).rejects.toThrow(/Unknown client_id/);
      await expect(signIn(adapter, ctx, rewrite, 'https://evil.example/integrations/social/wrapcast/callback')).rejects.toThrow(/not an authorized origin/);
      expect(sim.signers.size).toBe(0);
    });
  });

  it('without the Neynar app configured, beginning says which variables to set', async () => {
    const bare = createWrapcastAdapter();
    await expect(bare.beginConnect!({ state: 's', redirectUri: 'https://tidings.example/cb' }, {} as TestCtx)).rejects.toMatchObject({ kind: 'unsupported', message: expect.stringMatching(/WRAPCAST_CLIENT_SECRET/) });
  });
});

describe('wrapcast: casts', () => {
  it('counts UTF-8 bytes: 320 pass, 321 are refused before sending; a Pro account may cast 1,024', async () => {
    await withWrapcast(new Map(), async (sim, ctx, rewrite) => {
      const alice = await signIn(adapter, ctx, rewrite);
      const ok = await cast(ctx, alice, `<p>${'é'.repeat(160)}</p>`);
      if (ok.status !== 'published') throw new Error('expected published');
      expect(Buffer.byteLength(sim.cast(ok.id)!.text)).toBe(320);
      const before = posts(sim);
      expect((await platformFailure(cast(ctx, alice, `<p>${'é'.repeat(160)}a</p>`))).message).toMatch(/at most 320 bytes of text; this one is 321/);
      expect(posts(sim)).toBe(before);
      // the simulator holds a standard account to 320 bytes too, whatever the adapter believes
      const claimsPro = { ...alice, credentials: { ...alice.credentials, pro: true } };
      const refused = await platformFailure(cast(ctx, claimsPro, 'x'.repeat(500)));
      expect(refused).toMatchObject({ kind: 'rejected', details: { status: 400, platformCode: 'InvalidField' } });
      expect(refused.message).toMatch(/at most 320 bytes \(text\)/);

      sim.signInAs(PRO.fid);
      const pro = await signIn(adapter, ctx, rewrite);
      expect(pro.credentials.pro).toBe(true);
      const long = await cast(ctx, pro, 'x'.repeat(1024));
      expect(long.status).toBe('published');
      expect((await platformFailure(cast(ctx, pro, 'x'.repeat(1025)))).message).toMatch(/1024 bytes/);
    });
  });

  it('the channel setting becomes channel_id; an unknown channel is refused with Neynar’s words; replies go under the parent, not the channel', async () => {
    await withWrapcast(new Map(), async (sim, ctx, rewrite) => {
      const alice = await signIn(adapter, ctx, rewrite);
      const r = await cast(ctx, alice, 'in dev', { settings: { __type: 'wrapcast', subreddit: [{ value: { id: 'dev' } }] } });
      if (r.status !== 'published') throw new Error('expected published');
      expect(sim.cast(r.id)).toMatchObject({ channelId: 'dev', parentHash: null });
      expect(r.url).toBe(`https://farcaster.xyz/alice/${r.id.slice(0, 10)}`);
      expect(r.id).toMatch(/^0x[0-9a-f]{40}$/);
      const reply = await cast(ctx, alice, 'a reply', { settings: { subreddit: [{ value: { id: 'dev' } }] }, replyTo: r.id });
      if (reply.status !== 'published') throw new Error('expected published');
      expect(sim.cast(reply.id)).toMatchObject({ parentHash: r.id, channelId: null });
      const unknown = await platformFailure(cast(ctx, alice, 'nowhere', { settings: { subreddit: [{ value: { id: 'no-such-channel' } }] } }));
      expect(unknown).toMatchObject({ kind: 'rejected', message: 'Channel not found: no-such-channel (channel_id)' });
      const orphan = await platformFailure(cast(ctx, alice, 'orphan', { replyTo: `0x${'ab'.repeat(20)}` }));
      expect(orphan.message).toMatch(/Parent cast not found/);
    });
  });

  it('the same idempotency key gives the same cast (Neynar idem), once', async () => {
    await withWrapcast(new Map(), async (sim, ctx, rewrite) => {
      const alice = await signIn(adapter, ctx, rewrite);
      const a = await cast(ctx, alice, 'once', { key: 'post-1:item-0:attempt' });
      const b = await cast(ctx, alice, 'once', { key: 'post-1:item-0:attempt' });
      expect(b).toEqual(a);
      expect(sim.casts).toHaveLength(1);
      const body = sim.log.find((l) => l.method === 'POST')!.body as { idem: string };
      expect(body.idem).toBe(idemOf('post-1:item-0:attempt'));
      expect(body.idem).toHaveLength(16);
    });
  });

  it('two pictures are embedded by URL and fetched byte for byte; an unreadable or non-https URL is refused', async () => {
    const files = new Map([
      ['/media/p1.png', picture(1)],
      ['/media/p2.png', picture(2)],
    ]);
    await withWrapcast(files, async (sim, ctx, rewrite) => {
      const alice = await signIn(adapter, ctx, rewrite);
      const r = await cast(ctx, alice, 'two', { media: [image('p1'), image('p2')] });
      if (r.status !== 'published') throw new Error('expected published');
      expect(sim.cast(r.id)!.embeds).toEqual([
        { url: `${MEDIA_ORIGIN}/media/p1.png`, sha256: sha(picture(1)), size: picture(1).length },
        { url: `${MEDIA_ORIGIN}/media/p2.png`, sha256: sha(picture(2)), size: picture(2).length },
      ]);
      expect((await platformFailure(cast(ctx, alice, 'missing', { media: [image('gone')] }))).message).toMatch(/Embed url could not be fetched.*HTTP 404/);
      const local = { ...image('p1'), path: 'http://localhost:3000/media/p1.png' };
      expect((await platformFailure(cast(ctx, alice, 'local', { media: [local] }))).message).toMatch(/not https/);
      expect((await platformFailure(cast(ctx, alice, 'three', { media: [image('p1'), image('p2'), image('p1')] }))).message).toMatch(/at most 2/);
    });
  });

  it('a revoked signer or a refused API key means reconnecting; a 429 waits Neynar’s Retry-After', async () => {
    await withWrapcast(new Map(), async (sim, ctx, rewrite) => {
      const alice = await signIn(adapter, ctx, rewrite);
      sim.signers.get(alice.credentials.signerUuid as string)!.status = 'revoked';
      expect(await platformFailure(cast(ctx, alice, 'revoked'))).toMatchObject({ kind: 'reconnect_required', message: expect.stringMatching(/status: revoked/) });
      sim.signers.get(alice.credentials.signerUuid as string)!.status = 'approved';
      const wrongKey = createWrapcastAdapter({ app: { clientId: NEYNAR_APP.clientId, clientSecret: 'WRONG' } });
      const e = await platformFailure(wrongKey.publish({ item: { content: 'x', media: [] }, settings: {}, idempotencyKey: 'w' }, withCreds(ctx, alice)));
      expect(e).toMatchObject({ kind: 'reconnect_required', details: { status: 401 } });
      sim.inject({ path: /^\/v2\/farcaster\/cast/, status: 429, headers: { 'retry-after': '12' }, body: { code: 'RateLimitExceeded', message: 'Too many requests' } });
      expect(await platformFailure(cast(ctx, alice, 'slow'))).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 12 } });
    });
  });
});

describe('wrapcast: reading', () => {
  it('post analytics: likes, recasts and replies of the cast', async () => {
    await withWrapcast(new Map(), async (sim, ctx, rewrite) => {
      const alice = await signIn(adapter, ctx, rewrite);
      const r = await cast(ctx, alice, 'liked');
      if (r.status !== 'published') throw new Error('expected published');
      await cast(ctx, alice, 'reply 1', { replyTo: r.id });
      Object.assign(sim.cast(r.id)!, { likes: 9, recasts: 3 });
      const series = await adapter.postAnalytics!(r.id, 7, withCreds(ctx, alice));
      expect(series.map((s) => [s.label, s.data[0]!.total])).toEqual([
        ['Likes', 9],
        ['Recasts', 3],
        ['Replies', 1],
      ]);
      expect(sim.log.some((l) => l.path === `/v2/farcaster/cast?identifier=${r.id}&type=hash`)).toBe(true);
    });
  });

  it('the subreddits tool searches channels', async () => {
    await withWrapcast(new Map(), async (_sim, ctx, rewrite) => {
      const alice = await signIn(adapter, ctx, rewrite);
      const found = (await adapter.runTool!('subreddits', { word: 'dev' }, withCreds(ctx, alice))) as { id: string; name: string }[];
      expect(found.map((c) => [c.id, c.name])).toEqual([
        ['dev', 'Developers'],
        ['devops', 'DevOps'],
      ]);
      expect(await adapter.runTool!('subreddits', { word: '  ' }, withCreds(ctx, alice))).toEqual([]);
    });
  });

  it('findRecent lists the account’s casts newest first, across pages, filtered to the channel, with the same ids and URLs as publish', async () => {
    await withWrapcast(new Map(), async (sim, ctx, rewrite) => {
      const alice = await signIn(adapter, ctx, rewrite);
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await cast(ctx, alice, `cast ${i}`, { settings: i % 2 === 0 ? { subreddit: [{ value: { id: 'dev' } }] } : {} });
        if (r.status === 'published') made.push(r.id);
      }
      const all = await adapter.findRecent!({ since: new Date(0), limit: 2, settings: {} }, withCreds(ctx, alice));
      expect(all.map((p) => p.id)).toEqual([made[4], made[3]]);
      // two per page: the channel's second cast is on the second page
      const inDev = await adapter.findRecent!({ since: new Date(0), limit: 2, settings: { subreddit: [{ value: { id: 'dev' } }] } }, withCreds(ctx, alice));
      expect(inDev.map((p) => p.id)).toEqual([made[4], made[2]]);
      expect(inDev[0]).toMatchObject({ url: castUrl('alice', made[4]!), content: 'cast 4' });
      expect(sim.log.filter((l) => l.path.startsWith('/v2/farcaster/feed/user/casts')).some((l) => l.path.includes('cursor='))).toBe(true);
      const future = await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 10 }, withCreds(ctx, alice));
      expect(future).toEqual([]);
    });
  });
});

describe('wrapcast: error classification', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, body, headers });
  it('maps Neynar’s answers to one kind each', () => {
    expect(neynarError(res(200, { success: true, cast: {} }))).toBeUndefined();
    expect(neynarError(res(200, { success: false, message: 'hub refused' }))).toMatchObject({ kind: 'rejected', message: 'hub refused' });
    expect(neynarError(res(401, { code: 'Unauthorized', message: 'Invalid API key' }))?.kind).toBe('reconnect_required');
    expect(neynarError(res(403, { code: 'Forbidden', message: 'Signer revoked' }))?.kind).toBe('reconnect_required');
    expect(neynarError(res(429, { code: 'RateLimitExceeded', message: 'slow' }))).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 60 } });
    expect(neynarError(res(503, 'upstream down'))?.kind).toBe('transient');
    expect(neynarError(res(400, { code: 'InvalidField', message: 'Bad embed', property: 'embeds' }))).toMatchObject({ kind: 'rejected', message: 'Bad embed (embeds)', details: { platformCode: 'InvalidField' } });
    expect(neynarError(res(404, { code: 'NotFound', message: 'Cast not found' }))?.kind).toBe('rejected');
  });
  it('shortens the idempotency key the same way every time', () => {
    expect(idemOf('abc')).toBe(createHash('sha256').update('abc').digest('base64url').slice(0, 16));
    expect(idemOf('abc')).not.toBe(idemOf('abd'));
  });
});
