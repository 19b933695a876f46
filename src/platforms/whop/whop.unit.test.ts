import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { oauthConnector, platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { published, withCreds } from '../common/platform.testkit.js';
import type { OperationContext, PlatformAdapter, PlatformResponse, PublishItem } from '../platform.js';
import { whopError } from './errors.js';
import { createWhopAdapter } from './index.js';
import type { WhopSimulator } from './whop.simulator.js';
import { ACME, ELSEWHERE, LABS, REDIRECT, rewriteFor, USER, WHOP_APP, whopSimulator, originsFor, withWhop } from './whop.testkit.js';

const adapter = createWhopAdapter({ app: WHOP_APP });
const connect = oauthConnector(adapter, rewriteFor);
const NEWS = ACME.forums[0]!.experienceId;

/** The contract's posts go to Acme's announcements (thread items carry the post's settings, as the publisher passes them). */
const toForum: PlatformAdapter = {
  ...adapter,
  publish: (input, ctx) => adapter.publish({ ...input, settings: { company: ACME.id, experience: NEWS, ...input.settings } }, ctx),
  findRecent: (input, ctx) => adapter.findRecent!({ ...input, settings: { company: ACME.id, experience: NEWS, ...input.settings } }, ctx),
};

function lookupIn(sim: WhopSimulator) {
  return (id: string) => {
    const p = sim.posts.find((x) => x.id === id);
    return p ? { text: p.content ?? '', replyTo: p.parentId ?? undefined, mediaSha256: p.mediaSha256 } : undefined;
  };
}

// Files ready at the first look, so the contract's media post is published at once (the pending path is tested below).
runSimulatorContract({ name: 'whop', adapter: toForum, errorsIn200: false, start: () => whopSimulator({ processingPolls: 0 }), origins: originsFor, connect, lookup: lookupIn });

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082', 'hex');
const publish = (ctx: OperationContext, content: string, extra: { media?: PublishItem['media']; settings?: Record<string, unknown>; replyTo?: { id: string; rootId: string } } = {}) =>
  adapter.publish({ item: { content, media: extra.media ?? [] }, settings: extra.settings ?? { company: ACME.id, experience: NEWS }, replyTo: extra.replyTo, idempotencyKey: content }, ctx);
const image = (id: string): PublishItem['media'][number] => ({ id, path: `https://tidings.example/media/${id}.png`, type: 'image', mimeType: 'image/png', size: PNG.length, width: 1, height: 1 });

describe('whop: connecting', () => {
  it('OAuth with PKCE and a nonce, the token exchanged as JSON, the user from userinfo', async () => {
    await withWhop({}, async (sim, ctx) => {
      const begun = await adapter.beginConnect!({ state: 'st-1', redirectUri: REDIRECT, codeChallenge: 'challenge' }, ctx);
      const url = new URL(begun.url);
      expect(url.origin + url.pathname).toBe('https://api.whop.com/oauth/authorize');
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: WHOP_APP.clientId,
        scope: 'openid profile email forum:post:create forum:read company:basic:read',
        state: 'st-1',
        nonce: 'st-1',
        code_challenge: 'challenge',
        code_challenge_method: 'S256',
      });
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: USER.id, name: USER.name, profile: USER.username, picture: USER.picture, credentials: { userId: USER.id } });
      expect(account.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 3500_000);
      const token = sim.log.find((r) => r.path === '/oauth/token')!;
      expect(token.headers['content-type']).toMatch(/^application\/json/);
      expect(token.body).toMatchObject({ grant_type: 'authorization_code', client_id: WHOP_APP.clientId, client_secret: WHOP_APP.clientSecret, redirect_uri: REDIRECT, code_verifier: expect.any(String) });
    });
  });

  it('a wrong secret or a reused code is refused at connect time', async () => {
    await withWhop({}, async (sim, ctx) => {
      const wrong = createWhopAdapter({ app: { ...WHOP_APP, clientSecret: 'nope' } });
      const e = await platformFailure(connect(sim, ctx, wrong));
      expect({ kind: e.kind, message: e.message }).toEqual({ kind: 'rejected', message: 'Whop refused the authorisation: Client authentication failed' });
      const begun = await adapter.beginConnect!({ state: 's', redirectUri: REDIRECT, codeChallenge: createHash('sha256').update('v'.repeat(43)).digest('base64url') }, ctx);
      const code = new URL((await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
      await adapter.completeConnect!({ code, redirectUri: REDIRECT, codeVerifier: 'v'.repeat(43) }, ctx);
      const again = await platformFailure(adapter.completeConnect!({ code, redirectUri: REDIRECT, codeVerifier: 'v'.repeat(43) }, ctx));
      expect(again.message).toMatch(/already been used/);
    });
  });

  it('refresh rotates the refresh token; a revoked grant asks for a reconnect', async () => {
    await withWhop({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = await adapter.refresh!(withCreds(ctx, account));
      expect(r.credentials.refreshToken).not.toBe(account.credentials.refreshToken);
      expect(r.credentials.userId).toBe(USER.id);
      const reused = await platformFailure(adapter.refresh!(withCreds(ctx, account)));
      expect(reused.kind).toBe('reconnect_required');
      sim.revokeGrants();
      const e = await platformFailure(publish({ ...ctx, credentials: r.credentials }, 'after revoke'));
      expect({ kind: e.kind, code: e.details.platformCode }).toEqual({ kind: 'reconnect_required', code: 'invalid_grant' });
    });
  });

  it('without an app it says how to configure one', async () => {
    await withWhop({}, async (_sim, ctx) => {
      const e = await platformFailure(createWhopAdapter({}).beginConnect!({ state: 's', redirectUri: REDIRECT }, ctx));
      expect(e.message).toMatch(/WHOP_CLIENT_ID/);
    });
  });
});

describe('whop: tools', () => {
  it('companies lists the user’s companies; experiences a company’s forums by experience id', async () => {
    await withWhop({}, async (sim, ctx) => {
      const c = withCreds(ctx, await connect(sim, ctx));
      expect(await adapter.runTool!('companies', {}, c)).toEqual([
        { id: ACME.id, name: 'Acme Academy' },
        { id: LABS.id, name: 'Acme Labs' },
      ]);
      expect(await adapter.runTool!('experiences', { id: ACME.id }, c)).toEqual([
        { id: 'exp_AcmeNews1', name: 'Announcements' },
        { id: 'exp_AcmeChat1', name: 'Community chat' },
      ]);
      expect(sim.log.find((r) => r.path.startsWith('/api/v1/forums'))!.path).toBe(`/api/v1/forums?company_id=${ACME.id}&first=50`);
      const other = await platformFailure(adapter.runTool!('experiences', { id: ELSEWHERE.id }, c));
      expect({ kind: other.kind, message: other.message }).toEqual({ kind: 'rejected', message: 'Company not found' });
    });
  });

  it('a grant without the company scope asks for a reconnect (insufficient_scope)', async () => {
    await withWhop({}, async (sim, ctx) => {
      sim.approveAs(USER.id, ['openid', 'profile', 'forum:read', 'forum:post:create']);
      const c = withCreds(ctx, await connect(sim, ctx));
      const e = await platformFailure(adapter.runTool!('companies', {}, c));
      expect({ kind: e.kind, code: e.details.platformCode }).toEqual({ kind: 'reconnect_required', code: 'insufficient_scope' });
    });
  });
});

describe('whop: publishing', () => {
  it('Markdown content, the title, the experience; thread items as comments on the previous item', async () => {
    await withWhop({}, async (sim, ctx) => {
      const c = withCreds(ctx, await connect(sim, ctx));
      const settings = { company: LABS.id, experience: LABS.forums[0]!.experienceId, title: 'Release notes' };
      const root = published(await publish(c, '<p>Version <strong>2</strong> is <a href="https://tidings.example">out</a></p>', { settings }));
      expect(root.url).toBe(`https://whop.com/experiences/exp_LabsForum/${root.id}`);
      const one = published(await publish(c, '<p>Details</p>', { settings, replyTo: { id: root.id, rootId: root.id } }));
      const two = published(await publish(c, '<p>More</p>', { settings, replyTo: { id: one.id, rootId: root.id } }));
      expect(sim.posts.map((p) => [p.experienceId, p.parentId, p.title, p.content])).toEqual([
        ['exp_LabsForum', null, 'Release notes', 'Version **2** is [out](https://tidings.example)'],
        ['exp_LabsForum', root.id, null, 'Details'],
        ['exp_LabsForum', one.id, null, 'More'],
      ]);
      const found = await adapter.findRecent!({ since: new Date(0), limit: 10, replyTo: { id: one.id, rootId: root.id }, settings }, c);
      expect(found.map((f) => f.id)).toEqual([two.id]);
      const top = await adapter.findRecent!({ since: new Date(0), limit: 10, settings }, c);
      expect(top.map((f) => [f.id, f.content])).toEqual([[root.id, 'Version **2** is [out](https://tidings.example)']]);
    });
  });

  it('pictures: created as files, PUT to the pre-signed address with its headers, polled until ready (pending meanwhile)', async () => {
    await withWhop({ processingPolls: 2 }, async (sim, ctx) => {
      const c = withCreds(ctx, await connect(sim, ctx));
      const other = Buffer.concat([PNG, Buffer.from('x')]);
      ctx.media.set('a', new Blob([PNG], { type: 'image/png' }));
      ctx.media.set('b', new Blob([other], { type: 'image/png' }));
      const first = await publish(c, '<p>Two pictures</p>', { media: [image('a'), image('b')] });
      expect(first.status).toBe('pending');
      if (first.status !== 'pending') return;
      expect(sim.posts).toHaveLength(0);
      const put = sim.log.filter((r) => r.method === 'PUT');
      expect(put).toHaveLength(2);
      expect(put[0]!.path).toMatch(/^\/whop-files\/file_\w+\/image-1\.png\?X-Amz-Signature=\w+$/);
      expect(put[0]!.headers['content-type']).toBe('image/png');
      expect(put[0]!.headers.authorization).toBeUndefined();
      const second = await adapter.checkPublish!(first.token, c);
      expect(second.status).toBe('pending');
      const done = published(await adapter.checkPublish!(second.status === 'pending' ? second.token : '', c));
      const p = sim.posts.find((x) => x.id === done.id)!;
      expect(p.mediaSha256).toEqual([sha(PNG), sha(other)]);
      expect(p.attachments).toHaveLength(2);
    });
  });

  it('a file Whop cannot process fails the post with its status', async () => {
    await withWhop({ processingPolls: 0 }, async (sim, ctx) => {
      const c = withCreds(ctx, await connect(sim, ctx));
      ctx.media.set('a', new Blob([PNG], { type: 'image/png' }));
      sim.failNextFile();
      const e = await platformFailure(publish(c, 'broken', { media: [image('a')] }));
      expect({ kind: e.kind, message: e.message }).toMatchObject({ kind: 'rejected', message: expect.stringMatching(/upload_status: failed/) });
      expect(sim.posts).toHaveLength(0);
    });
  });

  it('refuses a missing experience and one outside the user’s companies; findRecent needs the experience', async () => {
    await withWhop({}, async (sim, ctx) => {
      const c = withCreds(ctx, await connect(sim, ctx));
      expect((await platformFailure(publish(c, 'x', { settings: { company: ACME.id } }))).message).toMatch(/needs an experience/);
      const elsewhere = await platformFailure(publish(c, 'x', { settings: { company: ELSEWHERE.id, experience: ELSEWHERE.forums[0]!.experienceId } }));
      expect({ kind: elsewhere.kind, message: elsewhere.message, code: elsewhere.details.platformCode }).toEqual({ kind: 'rejected', message: 'Experience not found', code: 'not_found' });
      expect((await platformFailure(adapter.findRecent!({ since: new Date(0), limit: 5 }, c))).kind).toBe('unsupported');
    });
  });
});

describe('whop: error classification', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}): PlatformResponse => ({ status, body, headers });
  it('codes first, then statuses', () => {
    expect(whopError(res(200, { id: 'post_1' }))).toBeUndefined();
    expect(whopError(res(400, { error: 'invalid_grant', error_description: 'Refresh token revoked' }))).toMatchObject({ kind: 'reconnect_required', message: 'Whop: Refresh token revoked' });
    expect(whopError(res(403, { error: { type: 'insufficient_scope', message: 'Missing forum:post:create' } }))).toMatchObject({ kind: 'reconnect_required' });
    expect(whopError(res(401, { error: { type: 'invalid_token', message: 'expired' } }))).toMatchObject({ kind: 'auth_expired' });
    expect(whopError(res(429, { error: { type: 'rate_limit_exceeded', message: 'Slow down' } }, { 'retry-after': '12' }))).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 12 } });
    expect(whopError(res(429, 'Too Many Requests'))).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 60 } });
    expect(whopError(res(503, '<html>down</html>'))).toMatchObject({ kind: 'transient' });
    expect(whopError(res(404, { error: { type: 'not_found', message: 'Experience not found' } }))).toMatchObject({ kind: 'rejected', message: 'Experience not found' });
  });
});
