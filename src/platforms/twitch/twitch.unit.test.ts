import { describe, expect, it } from 'vitest';
import { oauthConnector, platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import type { PlatformError } from '../platform.js';
import { DEFAULT_RETRY_AFTER_SECONDS, sentMessageId, twitchError } from './errors.js';
import { announcementId, createTwitchAdapter } from './index.js';
import type { TwitchSimulator } from './twitch.simulator.js';
import { originsFor, published, rewriteFor, say, STREAMER, TWITCH_APP, twitchSimulator, withCreds, withTwitch, type TestCtx } from './twitch.testkit.js';

const adapter = createTwitchAdapter({ app: TWITCH_APP });
const connect = oauthConnector(adapter, rewriteFor);

// A Twitch post is a chat message: text only (the metadata allows no media, and post validation
// refuses any), so the contract's media case cannot apply. Everything else runs unchanged.
runSimulatorContract({ name: 'twitch', adapter, errorsIn200: true, start: () => twitchSimulator(), origins: originsFor, connect });

const chatCalls = (sim: TwitchSimulator) => sim.log.filter((l) => l.path.startsWith('/helix/chat/'));

describe('twitch: connecting and tokens', () => {
  it('connects with the client secret in the form; Helix calls carry the bearer token and the Client-Id', async () => {
    await withTwitch({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: STREAMER.id, name: 'AcmeLive', profile: 'acmelive', picture: STREAMER.profile_image_url });
      expect(account.credentials).toMatchObject({ userId: STREAMER.id, login: 'acmelive', accessToken: expect.any(String), refreshToken: expect.any(String) });
      expect(account.expiresAt!.getTime() - Date.now()).toBeGreaterThan(3.9 * 3600_000);
      const q = new URL(sim.log.find((r) => r.path.startsWith('/oauth2/authorize'))!.path, 'http://x').searchParams;
      expect(q.get('scope')).toBe('user:write:chat user:read:chat moderator:manage:announcements');
      expect(q.get('code_challenge')).toBeNull();
      expect(sim.log.find((r) => r.path === '/oauth2/token')!.body).toMatchObject({ grant_type: 'authorization_code', client_id: TWITCH_APP.clientId, client_secret: TWITCH_APP.clientSecret });
      const users = sim.log.find((r) => r.path === '/helix/users')!;
      expect({ auth: users.headers.authorization, client: users.headers['client-id'] }).toEqual({ auth: `Bearer ${account.credentials.accessToken as string}`, client: TWITCH_APP.clientId });
    });
  });

  it('refuses a wrong client secret, a reused code, an unregistered redirect URI and a grant without user:write:chat', async () => {
    await withTwitch({}, async (sim, ctx) => {
      const wrong = await platformFailure(connect(sim, ctx, createTwitchAdapter({ app: { ...TWITCH_APP, clientSecret: 'nope' } })));
      expect({ kind: wrong.kind, message: wrong.message }).toEqual({ kind: 'rejected', message: 'invalid client secret' });
      await connect(sim, ctx);
      const used = sim.log.filter((r) => r.path === '/oauth2/token').at(-1)!.body as Record<string, string>;
      expect((await platformFailure(adapter.completeConnect!({ code: used.code!, redirectUri: used.redirect_uri! }, ctx))).message).toBe('Invalid authorization code');
      sim.apps.get(TWITCH_APP.clientId)!.redirectUris = ['https://tidings.example/cb'];
      const begun = await adapter.beginConnect!({ state: 's', redirectUri: 'https://evil.example/cb' }, ctx);
      expect((await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' })).status).toBe(400);
      sim.apps.get(TWITCH_APP.clientId)!.redirectUris = undefined;
      sim.grantOnly(['user:read:chat']);
      expect((await platformFailure(connect(sim, ctx))).message).toBe('Twitch did not grant the user:write:chat permission: connect again and allow it');
    });
    expect((await platformFailure(createTwitchAdapter({}).beginConnect!({ state: 's', redirectUri: 'http://localhost/cb' }, {} as TestCtx))).kind).toBe('unsupported');
  });

  it('refresh stores the refresh token Twitch answers with; a revoked grant needs reconnecting', async () => {
    await withTwitch({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const renewed = await adapter.refresh!(withCreds(ctx, account));
      expect(renewed.credentials.refreshToken).not.toBe(account.credentials.refreshToken);
      expect(renewed.credentials.accessToken).not.toBe(account.credentials.accessToken);
      expect(renewed.credentials).toMatchObject({ userId: STREAMER.id, login: 'acmelive' });
      expect(sim.log.filter((r) => r.path === '/oauth2/token').at(-1)!.body).toMatchObject({ grant_type: 'refresh_token', refresh_token: account.credentials.refreshToken, client_secret: TWITCH_APP.clientSecret });
      sim.revokeGrant();
      expect((await platformFailure(say(adapter, ctx, { ...account, credentials: renewed.credentials }, 'hi'))).kind).toBe('auth_expired');
      const dead = await platformFailure(adapter.refresh!(withCreds(ctx, account)));
      expect({ kind: dead.kind, message: dead.message }).toEqual({ kind: 'reconnect_required', message: 'Twitch refused the refresh token: Invalid refresh token' });
    });
  });
});

describe('twitch: chat messages and announcements', () => {
  it('sends plain text from the user into their own chat; the URL is the channel', async () => {
    await withTwitch({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await say(adapter, ctx, account, '<p>Going <em>live</em> &amp; loud</p>'));
      expect(r.url).toBe('https://twitch.tv/acmelive');
      expect(chatCalls(sim).map((l) => [l.path, l.body])).toEqual([['/helix/chat/messages', { broadcaster_id: STREAMER.id, sender_id: STREAMER.id, message: 'Going live & loud' }]]);
      expect(sim.messages).toMatchObject([{ id: r.id, text: 'Going live & loud', replyTo: null }]);
    });
  });

  it('thread items reply to the previous message; a parent that does not exist is Twitch’s refusal', async () => {
    await withTwitch({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const a = published(await say(adapter, ctx, account, 'one'));
      const b = published(await say(adapter, ctx, account, 'two', { replyTo: { id: a.id, rootId: a.id } }));
      const c = published(await say(adapter, ctx, account, 'three', { replyTo: { id: b.id, rootId: a.id } }));
      expect(sim.messages.map((m) => [m.id, m.replyTo])).toEqual([
        [a.id, null],
        [b.id, a.id],
        [c.id, b.id],
      ]);
      const err = await platformFailure(say(adapter, ctx, account, 'four', { replyTo: { id: 'b8e6d8f4-0000-4000-8000-000000000000', rootId: a.id } }));
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: 'The parent message was not found in this chat' });
    });
  });

  it('an announcement goes with its colour, answered 204: its id is made from the idempotency key; a reply to it is a plain message', async () => {
    await withTwitch({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const settings = { messageType: 'announcement', announcementColor: 'purple' };
      const a = published(await say(adapter, ctx, account, '<p>Big news</p>', { settings, key: 'post-1:1' }));
      expect(a).toEqual({ status: 'published', id: announcementId('post-1:1'), url: 'https://twitch.tv/acmelive' });
      expect(a.id).toMatch(/^announcement-[0-9a-f]{32}$/);
      expect(announcementId('post-1:1')).toBe(a.id);
      const call = chatCalls(sim)[0]!;
      expect(Object.fromEntries(new URL(call.path, 'http://x').searchParams)).toEqual({ broadcaster_id: STREAMER.id, moderator_id: STREAMER.id });
      expect(call.body).toEqual({ message: 'Big news', color: 'purple' });
      expect(sim.announcements).toMatchObject([{ text: 'Big news', color: 'purple', broadcasterId: STREAMER.id }]);
      const reply = published(await say(adapter, ctx, account, 'details below', { settings, replyTo: { id: a.id, rootId: a.id } }));
      expect(sim.messages).toMatchObject([{ id: reply.id, text: 'details below', replyTo: null }]);
      // Without a colour, Twitch's default (primary).
      published(await say(adapter, ctx, account, 'plain colour', { settings: { messageType: 'announcement' } }));
      expect(sim.announcements[1]!.color).toBe('primary');
    });
  });

  it('refuses text over 500 characters before sending; the simulator refuses it too', async () => {
    await withTwitch({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const err = await platformFailure(say(adapter, ctx, account, 'x'.repeat(501)));
      expect(err.message).toBe('A Twitch chat message takes at most 500 characters; this one has 501');
      const media = [{ id: 'm', path: 'https://media.example/m.png', type: 'image' as const, mimeType: 'image/png', size: 1 }];
      const withMedia = await platformFailure(adapter.publish({ item: { content: 'pic', media }, settings: {}, idempotencyKey: 'm' }, withCreds(ctx, account)));
      expect(withMedia.message).toBe('Twitch chat messages are text only: remove the pictures and videos');
      expect(chatCalls(sim)).toHaveLength(0);
      const res = await fetch(`${sim.origin}/helix/chat/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.credentials.accessToken as string}`, 'client-id': TWITCH_APP.clientId, 'content-type': 'application/json' },
        body: JSON.stringify({ broadcaster_id: STREAMER.id, sender_id: STREAMER.id, message: 'x'.repeat(501) }),
      });
      expect(res.status).toBe(400);
      expect(sim.messages).toHaveLength(0);
    });
  });

  it('a missing scope is a reconnect; the bucket running out is rate_limited until Ratelimit-Reset', async () => {
    await withTwitch({ rateLimitPerMinute: 2 }, async (sim, ctx) => {
      sim.grantOnly(['user:write:chat', 'user:read:chat']);
      const account = await connect(sim, ctx);
      const scope = await platformFailure(say(adapter, ctx, account, 'news', { settings: { messageType: 'announcement' } }));
      expect({ kind: scope.kind, status: scope.details.status }).toEqual({ kind: 'reconnect_required', status: 403 });
      // users at connect and the refused announcement used the two points of this minute.
      const limited = await platformFailure(say(adapter, ctx, account, 'hello'));
      expect(limited.kind).toBe('rate_limited');
      expect(limited.details.retryAfterSeconds).toBeGreaterThan(0);
      // Ratelimit-Reset is a whole epoch second, rounded up on both sides.
      expect(limited.details.retryAfterSeconds).toBeLessThanOrEqual(61);
    });
  });

  it('has no findRecent: Twitch cannot list chat messages', () => {
    expect(adapter.findRecent).toBeUndefined();
  });
});

describe('twitch: errors', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });

  it('sorts Helix answers into kinds, keeping Twitch’s words', () => {
    const now = 1_800_000_000_000;
    expect(twitchError(res(200, { data: [] }))).toBeUndefined();
    expect(twitchError(res(401, { error: 'Unauthorized', status: 401, message: 'Invalid OAuth token' }))).toMatchObject({ kind: 'auth_expired', message: 'Invalid OAuth token' });
    expect(twitchError(res(403, { error: 'Forbidden', status: 403, message: 'Missing scope: user:write:chat' }))!.kind).toBe('reconnect_required');
    expect(twitchError(res(429, { error: 'Too Many Requests', status: 429, message: 'Too Many Requests' }, { 'ratelimit-reset': String(now / 1000 + 17) }), now)).toMatchObject({
      kind: 'rate_limited',
      details: { retryAfterSeconds: 17 },
    });
    expect(twitchError(res(429, { error: 'Too Many Requests', status: 429, message: '' }), now)!.details.retryAfterSeconds).toBe(DEFAULT_RETRY_AFTER_SECONDS);
    expect(twitchError(res(503, { error: 'Service Unavailable', status: 503, message: '' }))).toMatchObject({ kind: 'transient', message: 'Service Unavailable' });
    expect(twitchError(res(400, { error: 'Bad Request', status: 400, message: 'Missing required parameter "message"' }))).toMatchObject({ kind: 'rejected', message: 'Missing required parameter "message"' });
  });

  it('reads is_sent and drop_reason under HTTP 200', () => {
    expect(sentMessageId({ data: [{ message_id: 'abc', is_sent: true, drop_reason: null }] })).toBe('abc');
    const dropped = (() => {
      try {
        sentMessageId({ data: [{ message_id: '', is_sent: false, drop_reason: { code: 'automod_held', message: 'Your message is being checked by mods.' } }] });
      } catch (e) {
        return e as PlatformError;
      }
    })();
    expect(dropped).toMatchObject({ kind: 'rejected', message: 'Twitch did not send the chat message: Your message is being checked by mods.', details: { platformCode: 'automod_held' } });
  });
});
