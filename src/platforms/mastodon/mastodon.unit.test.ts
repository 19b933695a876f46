import { describe, expect, it } from 'vitest';
import { oauthConnector, runSimulatorContract } from '../common/unit.testkit.js';
import { createPkce } from '../common/oauth2.js';
import { withSimulator } from '../common/platform.testkit.js';
import { PlatformError, type Credentials, type PublishItem } from '../platform.js';
import { mastodonRetryAfter } from './errors.js';
import { countMastodonText, createMastodonAdapter } from './index.js';
import type { MastodonSimulator } from './mastodon.simulator.js';
import { image, INSTANCE, lookupIn, mastodonSimulator, originsFor, PNG_SHA, REDIRECT, rewriteFor, withCreds, withMastodon, type TestCtx } from './mastodon.testkit.js';

const adapter = createMastodonAdapter({ mediaPollMs: 20, mediaWaitMs: 5_000 });

runSimulatorContract({ name: 'mastodon', adapter, errorsIn200: false, start: () => mastodonSimulator(), origins: originsFor, connect: oauthConnector(adapter, rewriteFor, { instanceUrl: INSTANCE }), lookup: lookupIn });

type BaseCtx = TestCtx;

describe('mastodon specifics', () => {
  const withSim = withMastodon;
  const text = (content: string, media: PublishItem['media'] = []): PublishItem => ({ content, media });

  /** The user's side of the authorisation, as the service runs it: begin (maybe with a known app), approve, complete. */
  async function connect(sim: MastodonSimulator, ctx: BaseCtx, instanceApp?: Credentials, tamper?: { verifier?: string }) {
    const pkce = createPkce();
    const begun = await adapter.beginConnect!({ state: 's1', redirectUri: REDIRECT, codeChallenge: pkce.challenge, instanceUrl: INSTANCE, instanceApp }, ctx);
    const res = await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' });
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const app = begun.instanceApp ?? instanceApp;
    const complete = () => adapter.completeConnect!({ code, redirectUri: REDIRECT, codeVerifier: tamper?.verifier ?? pkce.verifier, instanceUrl: INSTANCE, instanceApp: app }, ctx);
    return { begun, app, complete };
  }

  it('registers the app on the instance, authorises with PKCE and reads the profile', async () => {
    await withSim(async (sim, ctx) => {
      const { begun, complete } = await connect(sim, ctx);
      const url = new URL(begun.url);
      expect(`${url.origin}${url.pathname}`).toBe(`${INSTANCE}/oauth/authorize`);
      expect(Object.fromEntries(url.searchParams)).toMatchObject({ response_type: 'code', redirect_uri: REDIRECT, scope: 'read write', state: 's1', code_challenge_method: 'S256' });
      expect(url.search).toContain('scope=read+write');
      const [app] = [...sim.apps.values()];
      expect(app).toMatchObject({ name: 'Tidings', redirectUris: [REDIRECT], scopes: ['read', 'write'], website: 'http://localhost:3000' });
      expect(begun.instanceApp).toEqual({ clientId: app!.clientId, clientSecret: app!.clientSecret, redirectUri: REDIRECT, scopes: 'read write' });

      const account = await complete();
      const alice = [...sim.accounts.values()][0]!;
      expect(account).toMatchObject({ internalId: alice.id, name: 'Alice Example', profile: '@alice@mastodon.example', picture: alice.avatar, expiresAt: null });
      expect(account.credentials).toMatchObject({ instanceUrl: INSTANCE, accountId: alice.id });
      expect(sim.tokens.get(account.credentials.accessToken as string)?.scopes).toEqual(['read', 'write']);
    });
  });

  it('reuses the app registered on the instance, and registers again for another redirect URI', async () => {
    await withSim(async (sim, ctx) => {
      const first = await connect(sim, ctx);
      await first.complete();
      expect(sim.apps.size).toBe(1);

      const second = await connect(sim, ctx, first.app);
      expect(second.begun.instanceApp).toBeUndefined();
      expect(new URL(second.begun.url).searchParams.get('client_id')).toBe(first.app!.clientId);
      expect(sim.apps.size).toBe(1);
      const again = await second.complete();
      expect(again.profile).toBe('@alice@mastodon.example');

      const moved = await adapter.beginConnect!({ state: 's2', redirectUri: 'https://tidings.example/integrations/social/mastodon/callback', instanceUrl: INSTANCE, instanceApp: first.app }, ctx);
      expect(moved.instanceApp).toMatchObject({ redirectUri: 'https://tidings.example/integrations/social/mastodon/callback' });
      expect(sim.apps.size).toBe(2);
    });
  });

  it('registers again when the instance no longer knows the stored app (deleted by an admin, instance rebuilt)', async () => {
    await withSim(async (sim, ctx) => {
      const first = await connect(sim, ctx);
      await first.complete();
      sim.apps.clear();
      const again = await connect(sim, ctx, first.app);
      expect(again.begun.instanceApp).toMatchObject({ redirectUri: REDIRECT, scopes: 'read write' });
      expect(again.begun.instanceApp!.clientId).not.toBe(first.app!.clientId);
      expect(new URL(again.begun.url).searchParams.get('client_id')).toBe(again.begun.instanceApp!.clientId);
      expect((await again.complete()).profile).toBe('@alice@mastodon.example');
      expect(sim.apps.size).toBe(1);
    });
  });

  it('keeps the stored app when the instance fails to answer the check (no new registration on a bad day)', async () => {
    await withSim(async (sim, ctx) => {
      const first = await connect(sim, ctx);
      await first.complete();
      sim.inject({ path: /^\/oauth\/token/, status: 503, body: { error: 'Service Unavailable' } });
      const begun = await adapter.beginConnect!({ state: 's3', redirectUri: REDIRECT, instanceUrl: INSTANCE, instanceApp: first.app }, ctx);
      expect(begun.instanceApp).toBeUndefined();
      expect(sim.apps.size).toBe(1);
    });
  });

  it('is refused by the token endpoint with a wrong PKCE verifier, and a code works once', async () => {
    await withSim(async (sim, ctx) => {
      const bad = await connect(sim, ctx, undefined, { verifier: createPkce().verifier });
      const err = (await bad.complete().catch((e: unknown) => e)) as PlatformError;
      expect(err).toBeInstanceOf(PlatformError);
      expect(err.kind).toBe('rejected');
      expect(err.message).toMatch(/invalid_grant/);

      const good = await connect(sim, ctx, bad.app);
      await good.complete();
      const reused = (await good.complete().catch((e: unknown) => e)) as PlatformError;
      expect(reused.kind).toBe('rejected');
    });
  });

  it('sends the Idempotency-Key: the same key within an hour answers the same status', async () => {
    await withSim(async (sim, ctx) => {
      const account = await (await connect(sim, ctx)).complete();
      const c = withCreds(ctx, account);
      const a = await adapter.publish({ item: text('<p>Once only</p>'), settings: {}, idempotencyKey: 'post-1:0' }, c);
      const b = await adapter.publish({ item: text('<p>Once only</p>'), settings: {}, idempotencyKey: 'post-1:0' }, c);
      expect(b).toEqual(a);
      expect(sim.statuses).toHaveLength(1);
      expect(sim.statuses[0]!.idempotencyKey).toBe('post-1:0');
      expect(a).toMatchObject({ status: 'published', url: `${INSTANCE}/@alice/${sim.statuses[0]!.id}` });

      const other = await adapter.publish({ item: text('<p>Once only</p>'), settings: {}, idempotencyKey: 'post-2:0' }, c);
      expect(other.status === 'published' && other.id).not.toBe(a.status === 'published' && a.id);
      expect(sim.statuses).toHaveLength(2);

      // Mastodon keeps a key for one hour.
      sim.advanceTime(3601_000);
      await adapter.publish({ item: text('<p>Once only</p>'), settings: {}, idempotencyKey: 'post-1:0' }, c);
      expect(sim.statuses).toHaveLength(3);
    });
  });

  it('waits for media processing (202, then 206 until ready) before posting, with the alt text', async () => {
    await withSim(
      async (sim, ctx) => {
        const account = await (await connect(sim, ctx)).complete();
        const r = await adapter.publish({ item: text('<p>A picture</p>', [image]), settings: {}, idempotencyKey: 'm1' }, withCreds(ctx, account));
        expect(r.status).toBe('published');
        const [m] = [...sim.media.values()];
        expect(m).toMatchObject({ state: 'ready', description: 'A single pixel', sha256: PNG_SHA, mimeType: 'image/png' });
        expect(sim.log.filter((l) => l.method === 'GET' && l.path === `/api/v1/media/${m!.id}`)).toHaveLength(3);
        expect(sim.statuses[0]).toMatchObject({ mediaIds: [m!.id], mediaSha256: [PNG_SHA] });
      },
      { mediaProcessingPolls: 2 },
    );
  });

  it('answers pending when media take longer than the wait, and checkPublish posts once they are ready', async () => {
    await withSim(
      async (sim, ctx) => {
        const impatient = createMastodonAdapter({ mediaPollMs: 20, mediaWaitMs: 50 });
        const account = await (await connect(sim, ctx)).complete();
        const c = withCreds(ctx, account);
        const r = await impatient.publish({ item: text('<p>Slow video</p>', [image]), settings: {}, idempotencyKey: 'slow-1' }, c);
        if (r.status !== 'pending') throw new Error('expected pending');
        expect(sim.statuses).toHaveLength(0);
        const still = await impatient.checkPublish!(r.token, c);
        expect(still.status).toBe('pending');
        expect(sim.statuses).toHaveLength(0);

        sim.finishProcessing();
        const done = await impatient.checkPublish!(r.token, c);
        if (done.status !== 'published') throw new Error('expected published');
        expect(sim.statuses).toHaveLength(1);
        expect(sim.statuses[0]).toMatchObject({ id: done.id, text: 'Slow video', mediaSha256: [PNG_SHA] });
        // Checking again (say after a crash) answers the same status through the Idempotency-Key.
        expect(await impatient.checkPublish!(r.token, c)).toEqual(done);
        expect(sim.statuses).toHaveLength(1);
      },
      { mediaProcessingPolls: 1000 },
    );
  });

  it('counts like Mastodon: every URL is 23 characters, remote mentions count their user part', async () => {
    const url = `https://example.com/${'p'.repeat(80)}`;
    expect(countMastodonText(`hi ${url}`)).toBe(3 + 23);
    expect(countMastodonText('@bob@social.somewhere.example.org hi')).toBe('@bob hi'.length);
    expect(countMastodonText('👩‍👩‍👧')).toBe(1);

    const fits = `<p>${'a'.repeat(470)} ${url}</p>`; // 571 UTF-16 units, 494 for Mastodon
    const over = `<p>${'a'.repeat(480)} ${url}</p>`; // 504 for Mastodon
    expect(adapter.validate({ settings: {}, items: [{ content: fits, media: [] }] })).toEqual([]);
    const issues = adapter.validate({ settings: {}, items: [{ content: fits, media: [] }, { content: over, media: [] }] });
    expect(issues).toEqual([expect.objectContaining({ path: 'value.1.content', code: 'too_long' })]);
    expect(issues[0]!.message).toMatch(/504/);

    // The simulator counts the same way: what validate accepts is posted, what it refuses is a 422.
    await withSim(async (sim, ctx) => {
      const c = withCreds(ctx, await (await connect(sim, ctx)).complete());
      expect((await adapter.publish({ item: text(fits), settings: {}, idempotencyKey: 'fits' }, c)).status).toBe('published');
      const err = (await adapter.publish({ item: text(over), settings: {}, idempotencyKey: 'over' }, c).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: err.kind, status: err.details.status, message: err.message }).toEqual({ kind: 'rejected', status: 422, message: 'Validation failed: Text character limit of 500 exceeded' });
    });
  });

  it('classifies a really revoked token as reconnect_required and a 429 by its ISO reset time', async () => {
    await withSim(async (sim, ctx) => {
      const c = withCreds(ctx, await (await connect(sim, ctx)).complete());
      sim.injectKind('rate_limited');
      const limited = (await adapter.publish({ item: text('<p>x</p>'), settings: {}, idempotencyKey: 'r1' }, c).catch((e: unknown) => e)) as PlatformError;
      expect(limited.kind).toBe('rate_limited');
      expect(limited.details.retryAfterSeconds).toBeGreaterThan(100);
      expect(limited.details.retryAfterSeconds).toBeLessThanOrEqual(121);

      sim.revokeAllTokens();
      const revoked = (await adapter.publish({ item: text('<p>x</p>'), settings: {}, idempotencyKey: 'r2' }, c).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: revoked.kind, message: revoked.message }).toEqual({ kind: 'reconnect_required', message: 'The access token was revoked' });
      expect(sim.statuses).toHaveLength(0);
    });
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(mastodonRetryAfter({ 'x-ratelimit-reset': '2026-01-01T12:05:00.000000Z' }, now)).toBe(300);
  });

  it('finds recent statuses newest first and reads channel and post figures', async () => {
    await withSim(async (sim, ctx) => {
      const c = withCreds(ctx, await (await connect(sim, ctx)).complete());
      const ids: string[] = [];
      for (const n of [1, 2, 3]) {
        const r = await adapter.publish({ item: text(`<p>Post ${n}</p>`), settings: {}, idempotencyKey: `f${n}` }, c);
        if (r.status === 'published') ids.push(r.id);
      }
      const recent = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 2 }, c);
      expect(recent.map((r) => [r.id, r.content])).toEqual([
        [ids[2], 'Post 3'],
        [ids[1], 'Post 2'],
      ]);
      expect(recent[0]!.url).toBe(`${INSTANCE}/@alice/${ids[2]}`);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 10 }, c)).toEqual([]);

      const channel = await adapter.analytics!(7, c);
      expect(channel.map((s) => [s.label, s.data[0]!.total])).toEqual([
        ['Followers', 42],
        ['Following', 7],
        ['Posts', 3],
      ]);

      await adapter.publish({ item: text('<p>reply</p>'), settings: {}, replyTo: { id: ids[0]!, rootId: ids[0]! }, idempotencyKey: 'f4' }, c);
      Object.assign(sim.statuses.find((s) => s.id === ids[0])!, { favourites: 5, reblogs: 2 });
      const post = await adapter.postAnalytics!(ids[0]!, 7, c);
      expect(post.map((s) => [s.label, s.data[0]!.total])).toEqual([
        ['Likes', 5],
        ['Boosts', 2],
        ['Replies', 1],
      ]);
    });
  });

  it('refuses an instance on a private address when it is not an operator-mapped origin', async () => {
    // No origin mapped: the simulator is only reachable at its private loopback address.
    await withSimulator({ start: mastodonSimulator, origins: () => new Map() }, async (sim, ctx) => {
      const port = new URL(sim.origin).port;
      const err = (await adapter
        .beginConnect!({ state: 's', redirectUri: REDIRECT, instanceUrl: `http://127.0.0.1:${port}` }, ctx)
        .catch((e: unknown) => e)) as PlatformError;
      expect(err).toBeInstanceOf(PlatformError);
      expect(err.kind).toBe('rejected');
      expect(err.message).toMatch(/private/);
      const publishErr = (await adapter
        .publish({ item: text('<p>x</p>'), settings: {}, idempotencyKey: 'p' }, { ...ctx, credentials: { accessToken: 't', instanceUrl: `http://127.0.0.1:${port}`, accountId: '1', username: 'a' } })
        .catch((e: unknown) => e)) as PlatformError;
      expect({ kind: publishErr.kind, private: /private/.test(publishErr.message) }).toEqual({ kind: 'rejected', private: true });
      expect(sim.log).toHaveLength(0);
    });
  });
});
