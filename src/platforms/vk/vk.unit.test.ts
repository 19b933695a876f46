import { describe, expect, it } from 'vitest';
import { oauthConnector, platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { withCreds } from '../common/platform.testkit.js';
import { createPkce } from '../common/oauth2.js';
import { classifyVkError, uploadError, vkError } from './errors.js';
import { createVkAdapter } from './index.js';
import { vkMetadata } from './metadata.js';
import type { VkSimulator } from './vk.simulator.js';
import { BAKERY, CHAT, image, MP4, NEWS, originsFor, PNG, published, publishWith, rewriteFor, sha, video, VK_APP, VK_USER, vkSimulator, withVk, type TestCtx } from './vk.testkit.js';

const adapter = createVkAdapter({ app: VK_APP });
const connect = oauthConnector(adapter, rewriteFor);

runSimulatorContract({ name: 'vk', adapter, errorsIn200: true, start: () => vkSimulator(), origins: originsFor, connect });

const lastCall = (sim: VkSimulator, method: string) => sim.log.filter((l) => l.path.startsWith(`/method/${method}?`)).at(-1)!;

/** The whole VK ID round trip by hand, carrying `device_id` from the redirect as the real service must. */
async function connectWithDevice(sim: VkSimulator, ctx: TestCtx) {
  const pkce = createPkce();
  const redirectUri = 'https://tidings.example/integrations/social/vk/callback';
  const begun = await adapter.beginConnect!({ state: 's'.repeat(40), redirectUri, codeChallenge: pkce.challenge }, ctx);
  const res = await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' });
  const back = new URL(res.headers.get('location')!);
  expect([...back.searchParams.keys()].sort()).toEqual(['code', 'device_id', 'expires_in', 'state', 'type']);
  const deviceId = back.searchParams.get('device_id')!;
  const input = { code: back.searchParams.get('code')!, redirectUri, codeVerifier: pkce.verifier, callbackParams: { device_id: deviceId, expires_in: back.searchParams.get('expires_in')!, type: back.searchParams.get('type')! } };
  return { account: await adapter.completeConnect!(input, ctx), deviceId };
}

describe('vk: connecting and tokens', () => {
  it('connects through VK ID with PKCE and reads the profile from user_info', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: VK_USER.id, name: 'Pavel Sokolov', profile: `id${VK_USER.id}`, picture: VK_USER.avatar });
      expect(account.credentials).toMatchObject({ userId: VK_USER.id, accessToken: expect.stringMatching(/^vk2\.a\./), refreshToken: expect.stringMatching(/^vk2\.r\./) });
      const hour = account.expiresAt!.getTime() - Date.now();
      expect(hour).toBeGreaterThan(3500_000);
      expect(hour).toBeLessThanOrEqual(3600_000);
      const authorize = new URL(sim.log.find((r) => r.path.startsWith('/authorize?'))!.path, 'http://x').searchParams;
      expect(authorize.get('scope')).toBe('vkid.personal_info email wall status docs photos video groups');
      expect(authorize.get('code_challenge_method')).toBe('S256');
      const token = sim.log.find((r) => r.path === '/oauth2/auth')!.body as Record<string, string>;
      expect(token).toMatchObject({ grant_type: 'authorization_code', client_id: VK_APP.clientId, code_verifier: expect.any(String) });
      expect(token.state!.length).toBeGreaterThanOrEqual(32);
    });
  });

  it('carries device_id from the redirect into the exchange and every refresh, where VK ID requires it', async () => {
    await withVk({ requireDeviceId: true }, async (sim, ctx) => {
      // Without it (a callback that carried none) the strict VK ID refuses the exchange, naming device_id.
      const refused = await platformFailure(connect(sim, ctx));
      expect(refused.kind).toBe('rejected');
      expect(refused.message).toMatch(/device_id is required/);

      const { account, deviceId } = await connectWithDevice(sim, ctx);
      expect(account.credentials.deviceId).toBe(deviceId);
      expect((sim.log.filter((r) => r.path === '/oauth2/auth').at(-1)!.body as Record<string, string>).device_id).toBe(deviceId);
      const first = await adapter.refresh!(withCreds(ctx, account));
      const refresh = sim.log.filter((r) => r.path === '/oauth2/auth').at(-1)!.body as Record<string, string>;
      expect(refresh).toMatchObject({ grant_type: 'refresh_token', refresh_token: account.credentials.refreshToken, device_id: deviceId, client_id: VK_APP.clientId });
      expect(first.credentials).toMatchObject({ deviceId, userId: VK_USER.id });
      expect(first.credentials.refreshToken).not.toBe(account.credentials.refreshToken);
      // A device id that is not the grant's is refused: the grant is dead for us.
      const wrong = await platformFailure(adapter.refresh!({ ...withCreds(ctx, account), credentials: { ...first.credentials, deviceId: 'not-the-device' } }));
      expect(wrong.kind).toBe('reconnect_required');
    });
  });

  it('refresh tokens are single use: the rotated one is stored, the old one asks for a reconnect', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const first = await adapter.refresh!(withCreds(ctx, account));
      expect(sim.refreshCount()).toBe(1);
      expect(first.credentials.accessToken).not.toBe(account.credentials.accessToken);
      const stale = await platformFailure(adapter.refresh!(withCreds(ctx, account)));
      expect(stale).toMatchObject({ kind: 'reconnect_required', details: { platformCode: 'invalid_grant' } });
      const r = published(await publishWith(adapter, ctx, { ...account, credentials: first.credentials }, '<p>fresh</p>'));
      expect(sim.lookup(r.id)?.text).toBe('fresh');
    });
  });

  it('an expired token is auth_expired (refreshable); a revoked grant is reconnect_required, and so is an expired token without a refresh token', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.expireAccessTokens();
      const expired = await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>'));
      expect({ kind: expired.kind, code: expired.details.platformCode, message: expired.message }).toEqual({ kind: 'auth_expired', code: '5', message: 'User authorization failed: access_token has expired.' });
      const noRefresh = { ...account, credentials: { ...account.credentials, refreshToken: null } };
      expect((await platformFailure(publishWith(adapter, ctx, noRefresh, '<p>x</p>'))).kind).toBe('reconnect_required');
      sim.revokeGrant();
      expect((await platformFailure(adapter.refresh!(withCreds(ctx, account)))).kind).toBe('reconnect_required');
    });
  });

  it('a wrong app secret or redirect URI is refused at VK ID, and the code is single use', async () => {
    await withVk({}, async (sim, ctx) => {
      const wrong = createVkAdapter({ app: { ...VK_APP, clientSecret: 'not-the-key' } });
      const err = await platformFailure(connect(sim, ctx, wrong));
      expect(err.kind).toBe('rejected');
      expect(err.message).toMatch(/invalid_client/);
      sim.apps.get(VK_APP.clientId)!.redirectUris = ['https://tidings.example/integrations/social/vk/callback'];
      const page = await fetch(rewriteFor(sim)((await adapter.beginConnect!({ state: 's', redirectUri: 'https://evil.example/cb', codeChallenge: 'c' }, ctx)).url), { redirect: 'manual' });
      expect(page.status).toBe(400);
      const pkce = createPkce();
      const redirectUri = 'https://tidings.example/integrations/social/vk/callback';
      const begun = await adapter.beginConnect!({ state: 's', redirectUri, codeChallenge: pkce.challenge }, ctx);
      const code = new URL((await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
      const wrongVerifier = await platformFailure(adapter.completeConnect!({ code, redirectUri, codeVerifier: createPkce().verifier }, ctx));
      expect(wrongVerifier.message).toMatch(/invalid_grant/);
      // The code was spent by the failed attempt.
      expect((await platformFailure(adapter.completeConnect!({ code, redirectUri, codeVerifier: pkce.verifier }, ctx))).message).toMatch(/code is invalid or expired/);
    });
  });

  it('says VK is not configured without an app, and a refused code is rejected', async () => {
    const err = await platformFailure(createVkAdapter({}).beginConnect!({ state: 's', redirectUri: 'http://localhost/cb', codeChallenge: 'c' }, {} as TestCtx));
    expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'unsupported', message: 'VK is not configured' });
    await withVk({}, async (_sim, ctx) => {
      const bad = await platformFailure(adapter.completeConnect!({ code: 'vk2.c.nope', redirectUri: 'http://localhost/cb', codeVerifier: 'v'.repeat(43) }, ctx));
      expect(bad.kind).toBe('rejected');
      expect(bad.message).toMatch(/invalid_grant/);
    });
  });
});

describe('vk: wall posts', () => {
  it('posts plain text on the user’s own wall, with the post URL from owner and post id', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await publishWith(adapter, ctx, account, '<p>Fresh <strong>bread</strong> &amp; buns</p><p>from 8 am</p>'));
      expect(r.id).toBe(`${VK_USER.id}_1`);
      expect(r.url).toBe(`https://vk.com/wall${VK_USER.id}_1`);
      const call = lastCall(sim, 'wall.post');
      expect(call.path).toBe('/method/wall.post?v=5.199');
      expect(call.body).toEqual({ owner_id: VK_USER.id, message: 'Fresh bread & buns\nfrom 8 am', access_token: account.credentials.accessToken });
      expect(sim.posts[0]).toMatchObject({ ownerId: VK_USER.id, fromId: VK_USER.id });
    });
  });

  it('posts as a community: photos uploaded through the community’s upload server, owner_id negative, from_group=1', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const bytes = [PNG(1), PNG(2)];
      bytes.forEach((b, i) => ctx.media.set(`p${i}`, new Blob([b], { type: 'image/png' })));
      const r = published(await publishWith(adapter, ctx, account, '<p>New rye loaf</p>', { media: [image('p0', { alt: 'The loaf' }), image('p1')], settings: { __type: 'vk', community: BAKERY.id } }));
      expect(r.id).toBe(`-${BAKERY.id}_1`);
      expect(r.url).toBe(`https://vk.com/wall-${BAKERY.id}_1`);
      expect(sim.posts[0]).toMatchObject({ ownerId: `-${BAKERY.id}`, fromId: `-${BAKERY.id}`, text: 'New rye loaf' });
      expect(sim.lookup(r.id)!.mediaSha256).toEqual(bytes.map(sha));
      const post = lastCall(sim, 'wall.post').body as Record<string, string>;
      expect(post).toMatchObject({ owner_id: `-${BAKERY.id}`, from_group: '1', attachments: expect.stringMatching(new RegExp(`^photo-${BAKERY.id}_\\d+,photo-${BAKERY.id}_\\d+$`)) });
      expect(lastCall(sim, 'photos.getWallUploadServer').body).toMatchObject({ group_id: BAKERY.id });
      expect(lastCall(sim, 'photos.saveWallPhoto').body).toMatchObject({ group_id: BAKERY.id, server: expect.any(String), hash: expect.any(String), photo: expect.stringMatching(/^\[/) });
      const uploads = sim.log.filter((l) => /^\/c\d+\/upload\.php\?/.test(l.path));
      expect(uploads).toHaveLength(2);
      expect(sim.log.find((l) => l.path.startsWith('/method/photos.saveWallPhoto'))!.body).toMatchObject({ caption: 'The loaf' });
    });
  });

  it('as the user on a community wall (from_group: false); a community the user only moderates is refused with VK’s message', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await publishWith(adapter, ctx, account, '<p>Hello neighbours</p>', { settings: { community: NEWS.id, from_group: false } }));
      expect(sim.posts.find((p) => `${p.ownerId}_${p.id}` === r.id)).toMatchObject({ ownerId: `-${NEWS.id}`, fromId: VK_USER.id });
      expect(lastCall(sim, 'wall.post').body).not.toHaveProperty('from_group');
      const err = await platformFailure(publishWith(adapter, ctx, account, '<p>no</p>', { settings: { community: CHAT.id } }));
      expect({ kind: err.kind, code: err.details.platformCode, message: err.message }).toEqual({ kind: 'rejected', code: '214', message: 'Access to adding post denied: you are not an admin or editor of this community' });
      expect((await platformFailure(publishWith(adapter, ctx, account, '<p>no</p>', { settings: { community: 'club1' } }))).message).toMatch(/settings\.community/);
    });
  });

  it('uploads a video with video.save and the `video_file` field, and attaches it with a photo', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const clip = MP4(3, 300);
      ctx.media.set('v', new Blob([clip], { type: 'video/mp4' }));
      ctx.media.set('p', new Blob([PNG(9)], { type: 'image/png' }));
      const r = published(await publishWith(adapter, ctx, account, '<p>Baking live</p>', { media: [video('v', clip.length), image('p')] }));
      expect(sim.lookup(r.id)!.mediaSha256).toEqual([sha(clip), sha(PNG(9))]);
      expect(lastCall(sim, 'video.save').body).toMatchObject({ name: 'v.mp4', description: 'Baking live', wallpost: '0' });
      expect((lastCall(sim, 'wall.post').body as Record<string, string>).attachments).toMatch(new RegExp(`^video${VK_USER.id}_\\d+,photo${VK_USER.id}_\\d+$`));
      // Bytes that are not a video are refused by the upload host, with its code.
      ctx.media.set('bad', new Blob([PNG(1)], { type: 'video/mp4' }));
      const err = await platformFailure(publishWith(adapter, ctx, account, '<p>bad</p>', { media: [video('bad')] }));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'rejected', code: 'ERR_UPLOAD_BAD_FILE' });
    });
  });

  it('a picture VK cannot read (empty photo list) is rejected before saveWallPhoto', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      ctx.media.set('x', new Blob([Buffer.from('not a picture')], { type: 'image/png' }));
      const err = await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>', { media: [image('x')] }));
      expect(err.kind).toBe('rejected');
      expect(err.message).toMatch(/could not read the picture/);
      expect(sim.log.some((l) => l.path.startsWith('/method/photos.saveWallPhoto'))).toBe(false);
    });
  });

  it('thread items become comments; a third item replies to the second with reply_to_comment; comments on a community post are made as the community', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const settings = { community: BAKERY.id };
      const root = published(await publishWith(adapter, ctx, account, '<p>Menu</p>', { settings }));
      ctx.media.set('p', new Blob([PNG(4)], { type: 'image/png' }));
      const second = published(await publishWith(adapter, ctx, account, '<p>Soups</p>', { settings, media: [image('p')], replyTo: { id: root.id, rootId: root.id } }));
      const third = published(await publishWith(adapter, ctx, account, '<p>Borscht</p>', { settings, replyTo: { id: second.id, rootId: root.id } }));
      const [, , c2] = second.id.split('_');
      const [, , c3] = third.id.split('_');
      expect(second.url).toBe(`https://vk.com/wall${root.id}?reply=${c2}`);
      expect(third.url).toBe(`https://vk.com/wall${root.id}?reply=${c3}&thread=${c2}`);
      expect(sim.lookup(second.id)).toEqual({ text: 'Soups', replyTo: root.id, mediaSha256: [sha(PNG(4))] });
      expect(sim.lookup(third.id)?.replyTo).toBe(second.id);
      expect(lastCall(sim, 'wall.createComment').body).toMatchObject({ owner_id: `-${BAKERY.id}`, post_id: root.id.split('_')[1], reply_to_comment: c2, from_group: BAKERY.id, message: 'Borscht' });
      expect(sim.comments.map((c) => c.fromId)).toEqual([`-${BAKERY.id}`, `-${BAKERY.id}`]);
      // Both comments are found when reconciling, the nested one included.
      const found = await adapter.findRecent!({ since: new Date(0), limit: 10, replyTo: { id: second.id, rootId: root.id } }, withCreds(ctx, account));
      expect(found.map((f) => f.id).sort()).toEqual([second.id, third.id].sort());
      expect(found.find((f) => f.id === third.id)).toMatchObject({ content: 'Borscht', url: third.url });
    });
  });

  it('findRecent lists the account’s posts on the wall the settings name, newest first, since a date', async () => {
    let now = Date.parse('2026-03-01T10:00:00Z');
    await withVk({ now: () => now }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      published(await publishWith(adapter, ctx, account, '<p>old</p>'));
      now += 3600_000;
      const mine = published(await publishWith(adapter, ctx, account, '<p>mine</p>'));
      const group = published(await publishWith(adapter, ctx, account, '<p>as bakery</p>', { settings: { community: BAKERY.id } }));
      now += 1000;
      const newer = published(await publishWith(adapter, ctx, account, '<p>newer</p>'));
      const since = new Date(now - 2000);
      const list = await adapter.findRecent!({ since, limit: 10 }, withCreds(ctx, account));
      expect(list.map((p) => p.content)).toEqual(['newer', 'mine']);
      expect(list[0]).toEqual({ id: newer.id, url: newer.url, content: 'newer', createdAt: new Date(Math.floor(now / 1000) * 1000).toISOString() });
      expect(list[1]!.id).toBe(mine.id);
      const onBakery = await adapter.findRecent!({ since, limit: 10, settings: { community: BAKERY.id } }, withCreds(ctx, account));
      expect(onBakery.map((p) => p.id)).toEqual([group.id]);
      expect(lastCall(sim, 'wall.get').body).toMatchObject({ owner_id: `-${BAKERY.id}`, count: '10' });
    });
  });
});

describe('vk: tools, analytics, validation', () => {
  it('the communities tool lists the communities the user administers or edits', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const list = await adapter.runTool!('communities', {}, withCreds(ctx, account));
      expect(list).toEqual([
        { id: BAKERY.id, name: BAKERY.name, screen_name: BAKERY.screen_name, picture: expect.stringMatching(/^https:/) },
        { id: NEWS.id, name: NEWS.name, screen_name: NEWS.screen_name, picture: expect.stringMatching(/^https:/) },
      ]);
      expect(lastCall(sim, 'groups.get').body).toMatchObject({ filter: 'admin,editor', extended: '1', user_id: VK_USER.id });
      expect((await platformFailure(adapter.runTool!('boards', {}, withCreds(ctx, account)))).kind).toBe('unsupported');
    });
  });

  it('a scope the user did not grant is VK’s error 15, rejected with its message', async () => {
    await withVk({}, async (sim, ctx) => {
      sim.grantOnly(['vkid.personal_info', 'wall', 'photos', 'video']);
      const account = await connect(sim, ctx);
      const err = await platformFailure(adapter.runTool!('communities', {}, withCreds(ctx, account)));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'rejected', code: '15' });
    });
  });

  it('post analytics: views, likes, reposts and comments from wall.getById', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await publishWith(adapter, ctx, account, '<p>counted</p>'));
      published(await publishWith(adapter, ctx, account, '<p>a comment</p>', { replyTo: { id: r.id, rootId: r.id } }));
      sim.setPostStats(r.id, { views: 120, likes: 7, reposts: 2 });
      const series = await adapter.postAnalytics!(r.id, 7, withCreds(ctx, account));
      expect(series.map((s) => [s.label, s.data[0]!.total])).toEqual([
        ['Views', 120],
        ['Likes', 7],
        ['Reposts', 2],
        ['Comments', 1],
      ]);
      expect(lastCall(sim, 'wall.getById').body).toMatchObject({ posts: r.id });
    });
  });

  it('validate names an empty item; settings name from_group without a community', () => {
    expect(adapter.validate({ settings: {}, items: [{ content: '<p> </p>', media: [] }, { content: 'ok', media: [] }] })).toEqual([
      { path: 'value.0.content', code: 'empty', message: 'A VK post or comment needs text or an attachment' },
    ]);
    expect(adapter.validate({ settings: {}, items: [{ content: '', media: [{ type: 'image', mimeType: 'image/png', size: 1 }] }] })).toEqual([]);
    const parsed = vkMetadata.settings!.safeParse({ __type: 'vk', from_group: true });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => i.path.join('.'))).toEqual(['from_group']);
    expect(vkMetadata.settings!.safeParse({ __type: 'vk', community: '-5' }).success).toBe(false);
    expect(vkMetadata.settings!.safeParse({ __type: 'vk' }).success).toBe(true);
  });
});

describe('vk: error classification', () => {
  const res = (body: unknown, status = 200) => ({ status, headers: {}, body });
  const kindOf = (code: number, msg = 'x', canRefresh = true) => {
    const e = classifyVkError({ error_code: code, error_msg: msg }, { canRefresh });
    return { kind: e.kind, wait: e.details.retryAfterSeconds };
  };

  it('maps VK error codes found inside HTTP 200', () => {
    expect(kindOf(5, 'User authorization failed: access_token has expired.')).toEqual({ kind: 'auth_expired', wait: undefined });
    expect(kindOf(5, 'User authorization failed: invalid session.')).toEqual({ kind: 'reconnect_required', wait: undefined });
    expect(kindOf(6, 'Too many requests per second')).toEqual({ kind: 'rate_limited', wait: 1 });
    expect(kindOf(9, 'Flood control')).toEqual({ kind: 'rate_limited', wait: 3600 });
    expect(kindOf(29, 'Rate limit reached')).toEqual({ kind: 'rate_limited', wait: 3600 });
    expect(kindOf(10, 'Internal server error')).toEqual({ kind: 'transient', wait: undefined });
    expect(kindOf(17, 'Validation required')).toEqual({ kind: 'reconnect_required', wait: undefined });
    for (const code of [15, 100, 214, 219]) expect(kindOf(code).kind).toBe('rejected');
    const captcha = classifyVkError({ error_code: 14, error_msg: 'Captcha needed' });
    expect(captcha.kind).toBe('rejected');
    expect(captcha.message).toMatch(/captcha/i);
    expect(vkError(res({ error: { error_code: 214, error_msg: 'Access to adding post denied' } }))?.message).toBe('Access to adding post denied');
    expect(vkError(res({ response: { post_id: 1 } }))).toBeUndefined();
    expect(vkError(res('<html>bad gateway</html>', 502))?.kind).toBe('transient');
    expect(vkError(res('<html>odd</html>'))).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
    expect(uploadError(res({ server: 1, photo: '[]', hash: 'h' }), 'photo')?.kind).toBe('rejected');
    expect(uploadError(res({ server: 1, photo: '[{"photo":"a"}]', hash: 'h' }), 'photo')).toBeUndefined();
  });

  it('the simulator’s own rate limit answers error 6 in an HTTP 200, read as rate_limited', async () => {
    const frozen = Date.parse('2026-03-01T10:00:00.100Z');
    await withVk({ rateLimitPerSecond: 3, now: () => frozen }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      for (let i = 0; i < 3; i++) published(await publishWith(adapter, ctx, account, `<p>n${i}</p>`));
      const err = await platformFailure(publishWith(adapter, ctx, account, '<p>one too many</p>'));
      expect({ kind: err.kind, code: err.details.platformCode, wait: err.details.retryAfterSeconds, message: err.message }).toEqual({ kind: 'rate_limited', code: '6', wait: 1, message: 'Too many requests per second' });
      expect(sim.posts).toHaveLength(3);
    });
  });

  it('the simulator refuses a call without v, as VK does', async () => {
    await withVk({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = await fetch(`${sim.origin}/method/wall.post`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `message=x&access_token=${String(account.credentials.accessToken)}` });
      expect(r.status).toBe(200);
      expect(((await r.json()) as { error: { error_code: number } }).error.error_code).toBe(8);
      expect(sim.posts).toHaveLength(0);
    });
  });
});
