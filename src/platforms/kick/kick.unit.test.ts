import { describe, expect, it } from 'vitest';
import { oauthConnector, platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import type { PlatformError } from '../platform.js';
import { DEFAULT_RETRY_AFTER_SECONDS, kickError, sentMessageId } from './errors.js';
import { createKickAdapter } from './index.js';
import { KICK_APP, kickSimulator, originsFor, OTHER, published, rewriteFor, say, STREAMER, withCreds, withKick, type TestCtx } from './kick.testkit.js';

const adapter = createKickAdapter({ app: KICK_APP });
const connect = oauthConnector(adapter, rewriteFor);

// A Kick post is a chat message: text only (the metadata allows no media, and post validation
// refuses any), so the contract's media case cannot apply. Everything else runs unchanged.
runSimulatorContract({ name: 'kick', adapter, errorsIn200: true, start: kickSimulator, origins: originsFor, connect });

describe('kick: connecting and tokens', () => {
  it('connects with PKCE S256 and the client secret in the form; the channel slug names the profile', async () => {
    await withKick(async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: String(STREAMER.user_id), name: 'AcmeLive', profile: 'acmelive', picture: STREAMER.profile_picture });
      expect(account.credentials).toMatchObject({ userId: String(STREAMER.user_id), slug: 'acmelive', accessToken: expect.any(String), refreshToken: expect.any(String) });
      expect(account.expiresAt!.getTime()).toBeGreaterThan(Date.now());
      const q = new URL(sim.log.find((r) => r.path.startsWith('/oauth/authorize'))!.path, 'http://x').searchParams;
      expect({ scope: q.get('scope'), method: q.get('code_challenge_method'), challenge: q.get('code_challenge')?.length }).toEqual({ scope: 'user:read channel:read chat:write', method: 'S256', challenge: 43 });
      const token = sim.log.find((r) => r.path === '/oauth/token')!;
      expect(token.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(token.body).toMatchObject({ grant_type: 'authorization_code', client_id: KICK_APP.clientId, client_secret: KICK_APP.clientSecret, code_verifier: expect.any(String) });
      expect(sim.log.filter((r) => r.path === '/public/v1/users' || r.path === '/public/v1/channels')).toHaveLength(2);
    });
  });

  it('the simulator’s OAuth server refuses a wrong verifier, a reused code, a wrong secret and a request without PKCE', async () => {
    await withKick(async (sim, ctx) => {
      const begun = await adapter.beginConnect!({ state: 's1', redirectUri: 'http://localhost/cb', codeChallenge: 'A'.repeat(43) }, ctx);
      const code = new URL((await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
      const wrongVerifier = await platformFailure(adapter.completeConnect!({ code, redirectUri: 'http://localhost/cb', codeVerifier: 'not-the-verifier' }, ctx));
      expect({ kind: wrongVerifier.kind, message: wrongVerifier.message }).toEqual({ kind: 'rejected', message: 'Invalid request' });

      const account = await connect(sim, ctx);
      expect(account.name).toBe('AcmeLive');
      const used = sim.log.filter((r) => r.path === '/oauth/token').at(-1)!.body as Record<string, string>;
      const again = await platformFailure(adapter.completeConnect!({ code: used.code!, redirectUri: used.redirect_uri!, codeVerifier: used.code_verifier }, ctx));
      expect(again.kind).toBe('rejected');

      const wrongSecret = await platformFailure(connect(sim, ctx, createKickAdapter({ app: { ...KICK_APP, clientSecret: 'nope' } })));
      expect({ kind: wrongSecret.kind, message: wrongSecret.message }).toEqual({ kind: 'rejected', message: "Kick refused this server's app (check KICK_CLIENT_ID and KICK_CLIENT_SECRET): Unauthorized" });

      const noPkce = await fetch(rewriteFor(sim)(begun.url.replace(/&code_challenge[^&]*/g, '')), { redirect: 'manual' });
      expect(noPkce.status).toBe(400);
      expect(await platformFailure(adapter.beginConnect!({ state: 's', redirectUri: 'http://localhost/cb' }, ctx))).toMatchObject({ kind: 'unsupported' });
    });
  });

  it('says Kick is not configured without an app, and refuses a grant without chat:write', async () => {
    const err = await platformFailure(createKickAdapter({}).beginConnect!({ state: 's', redirectUri: 'http://localhost/cb', codeChallenge: 'x' }, {} as TestCtx));
    expect(err).toMatchObject({ kind: 'unsupported', message: 'Kick is not configured (set KICK_CLIENT_ID and KICK_CLIENT_SECRET)' });
    await withKick(async (sim, ctx) => {
      sim.grantOnly(['user:read', 'channel:read']);
      const refused = await platformFailure(connect(sim, ctx));
      expect({ kind: refused.kind, message: refused.message }).toEqual({ kind: 'rejected', message: 'Kick did not grant the chat:write permission: connect again and allow it' });
    });
  });

  it('refresh rotates the refresh token: the new one is kept, the old one is dead (reconnect)', async () => {
    await withKick(async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const first = await adapter.refresh!(withCreds(ctx, account));
      expect(first.credentials.refreshToken).not.toBe(account.credentials.refreshToken);
      expect(first.credentials).toMatchObject({ userId: String(STREAMER.user_id), slug: 'acmelive' });
      const refreshBody = sim.log.filter((r) => r.path === '/oauth/token').at(-1)!.body;
      expect(refreshBody).toMatchObject({ grant_type: 'refresh_token', refresh_token: account.credentials.refreshToken, client_secret: KICK_APP.clientSecret });
      const stale = await platformFailure(adapter.refresh!(withCreds(ctx, account)));
      expect(stale.kind).toBe('reconnect_required');
      published(await say(adapter, ctx, { ...account, credentials: first.credentials }, '<p>after refresh</p>'));
      expect(sim.refreshCount()).toBe(1);
    });
  });

  it('a revoked grant: publishing says auth_expired, the refresh then says reconnect_required', async () => {
    await withKick(async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.revokeGrant();
      expect((await platformFailure(say(adapter, ctx, account, 'hi'))).kind).toBe('auth_expired');
      expect((await platformFailure(adapter.refresh!(withCreds(ctx, account)))).kind).toBe('reconnect_required');
    });
  });
});

describe('kick: chat messages', () => {
  it('sends plain text as the user into their own channel; the URL is the channel', async () => {
    await withKick(async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await say(adapter, ctx, account, '<p>Live <strong>now</strong> &amp; then</p><p>second line</p>'));
      expect(r.url).toBe('https://kick.com/acmelive');
      expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(sim.log.find((l) => l.path === '/public/v1/chat')!.body).toEqual({ type: 'user', content: 'Live now & then\nsecond line', broadcaster_user_id: STREAMER.user_id });
      expect(sim.messages).toMatchObject([{ id: r.id, senderUserId: STREAMER.user_id, broadcasterUserId: STREAMER.user_id, replyTo: null }]);
    });
  });

  it('thread items reply to the previous message', async () => {
    await withKick(async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const a = published(await say(adapter, ctx, account, 'one'));
      const b = published(await say(adapter, ctx, account, 'two', { id: a.id, rootId: a.id }));
      const c = published(await say(adapter, ctx, account, 'three', { id: b.id, rootId: a.id }));
      expect(sim.messages.map((m) => [m.id, m.replyTo])).toEqual([
        [a.id, null],
        [b.id, a.id],
        [c.id, b.id],
      ]);
      // A reply to a message that does not exist is Kick's refusal.
      const err = await platformFailure(say(adapter, ctx, account, 'four', { id: '00000000-0000-0000-0000-000000000000', rootId: a.id }));
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: 'Invalid request: reply_to_message_id does not exist in this chat' });
    });
  });

  it('refuses text over 500 characters before sending; long HTML whose text fits is sent', async () => {
    await withKick(async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const err = await platformFailure(say(adapter, ctx, account, `<p>${'a'.repeat(501)}</p>`));
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: 'A Kick chat message takes at most 500 characters; this one has 501' });
      expect((await platformFailure(say(adapter, ctx, account, '<p> </p>'))).kind).toBe('rejected');
      const media = [{ id: 'm', path: 'https://media.example/m.png', type: 'image' as const, mimeType: 'image/png', size: 1 }];
      const withMedia = await platformFailure(adapter.publish({ item: { content: 'pic', media }, settings: {}, idempotencyKey: 'm' }, withCreds(ctx, account)));
      expect(withMedia.message).toBe('Kick chat messages are text only: remove the pictures and videos');
      expect(sim.log.filter((l) => l.path === '/public/v1/chat')).toHaveLength(0);
      published(await say(adapter, ctx, account, `<p><strong>${'b'.repeat(500)}</strong></p>`));
      expect(sim.messages[0]!.content).toHaveLength(500);
    });
  });

  it('the simulator refuses a message into another channel and one over 500 characters (its own checks)', async () => {
    await withKick(async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const token = account.credentials.accessToken as string;
      const post = (body: unknown) =>
        fetch(`${sim.origin}/public/v1/chat`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const other = await post({ type: 'user', content: 'hi', broadcaster_user_id: OTHER.user_id });
      expect(other.status).toBe(400);
      const long = await post({ type: 'user', content: 'x'.repeat(501), broadcaster_user_id: STREAMER.user_id });
      expect(await long.json()).toEqual({ data: {}, message: 'Invalid request: content may not be greater than 500 characters' });
      expect(sim.messages).toHaveLength(0);
    });
  });

  it('has no findRecent: Kick cannot list sent chat messages', () => {
    expect(adapter.findRecent).toBeUndefined();
  });
});

describe('kick: errors', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });

  it('sorts Kick’s answers into kinds, keeping its words', () => {
    expect(kickError(res(200, { data: {}, message: 'OK' }))).toBeUndefined();
    expect(kickError(res(401, { data: {}, message: 'Unauthorized' }))).toMatchObject({ kind: 'auth_expired', message: 'Unauthorized' });
    expect(kickError(res(403, { data: {}, message: 'Forbidden: missing scope chat:write' }))!.kind).toBe('reconnect_required');
    expect(kickError(res(429, { data: {}, message: 'Too Many Attempts.' }, { 'retry-after': '12' }))).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 12 } });
    expect(kickError(res(429, { data: {}, message: 'Too Many Attempts.' }))!.details.retryAfterSeconds).toBe(DEFAULT_RETRY_AFTER_SECONDS);
    expect(kickError(res(502, '<html>bad gateway</html>'))!.kind).toBe('transient');
    expect(kickError(res(400, { data: {}, message: 'Invalid request' }))).toMatchObject({ kind: 'rejected', message: 'Invalid request' });
  });

  it('reads is_sent under HTTP 200', () => {
    expect(sentMessageId({ data: { is_sent: true, message_id: 'm-1' }, message: 'OK' })).toBe('m-1');
    expect(() => sentMessageId({ data: { is_sent: false, message_id: '' }, message: 'slow mode' })).toThrow('Kick did not send the chat message: slow mode');
    const lost = (() => {
      try {
        sentMessageId({ data: { is_sent: true }, message: 'OK' });
      } catch (e) {
        return e as PlatformError;
      }
    })();
    expect(lost).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
  });
});
