import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { oauthConnector, platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { withCreds } from '../common/platform.testkit.js';
import type { PlatformResponse } from '../platform.js';
import { DEFAULT_RETRY_AFTER_SECONDS, tumblrError } from './errors.js';
import { npfMultipart } from './client.js';
import { createTumblrAdapter } from './index.js';
import type { TumblrSimulator } from './tumblr.simulator.js';
import {
  image,
  MAIN_BLOG,
  MP4,
  originsFor,
  OTHER_BLOG,
  PNG,
  published,
  publishWith,
  rewriteFor,
  sha,
  SIDE_BLOG,
  TUMBLR_APP,
  tumblrSimulator,
  USER,
  video,
  withTumblr,
  type TestCtx,
} from './tumblr.testkit.js';

const adapter = createTumblrAdapter({ app: TUMBLR_APP });
const connect = oauthConnector(adapter, rewriteFor);

// Tumblr has reblogs but no replies or comments an app can post (platforms.md: "no (reblog
// only)"; the metadata says `thread.supported: false` and post validation refuses thread items),
// so the contract's thread case cannot apply; the adapter's answer to a reply is tested below.
runSimulatorContract({ name: 'tumblr', adapter, errorsIn200: false, start: () => tumblrSimulator(), origins: originsFor, connect });

const lastPost = (sim: TumblrSimulator) => sim.log.filter((l) => l.method === 'POST' && /^\/v2\/blog\/[^/]+\/posts$/.test(l.path)).at(-1)!;

describe('tumblr: connecting and tokens', () => {
  it('asks for basic, write and offline_access, sends the client in the form, and connects the primary blog', async () => {
    await withTumblr({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: MAIN_BLOG.uuid, name: 'Acme Studio', profile: 'acme-studio', picture: expect.stringMatching(/_512\.png$/) });
      expect(account.credentials).toMatchObject({ blogUuid: MAIN_BLOG.uuid, blogName: 'acme-studio', userName: USER.name, refreshToken: expect.any(String) });
      const lifetime = account.expiresAt!.getTime() - Date.now();
      expect(lifetime).toBeGreaterThan(41 * 60_000);
      expect(lifetime).toBeLessThanOrEqual(42 * 60_000);
      const q = new URL(sim.log.find((r) => r.path.startsWith('/oauth2/authorize?'))!.path, 'http://x').searchParams;
      expect(q.get('scope')).toBe('basic write offline_access');
      expect(q.get('client_id')).toBe(TUMBLR_APP.clientId);
      expect(q.has('code_challenge')).toBe(false);
      const token = sim.log.find((r) => r.path === '/v2/oauth2/token')!;
      expect(token.body).toMatchObject({ grant_type: 'authorization_code', client_id: TUMBLR_APP.clientId, client_secret: TUMBLR_APP.clientSecret, redirect_uri: 'http://localhost:3000/integrations/social/test/callback' });
      const info = sim.log.find((r) => r.path === '/v2/user/info')!;
      expect(info.headers.authorization).toBe(`Bearer ${String(account.credentials.accessToken)}`);
    });
  });

  it('says Tumblr is not configured without an app; refuses a grant without write; a wrong secret is refused', async () => {
    const err = await platformFailure(createTumblrAdapter({}).beginConnect!({ state: 's', redirectUri: 'http://localhost/cb' }, {} as TestCtx));
    expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'unsupported', message: 'Tumblr is not configured' });
    await withTumblr({}, async (sim, ctx) => {
      sim.grantOnly(['basic', 'offline_access']);
      const refused = await platformFailure(connect(sim, ctx));
      expect({ kind: refused.kind, message: refused.message }).toEqual({ kind: 'rejected', message: 'Tumblr did not grant the write permission: connect again and allow it' });
      sim.grantOnly(undefined);
      const wrong = await platformFailure(connect(sim, ctx, createTumblrAdapter({ app: { ...TUMBLR_APP, clientSecret: 'nope' } })));
      expect(wrong.kind).toBe('rejected');
      expect(wrong.message).toMatch(/invalid_client/);
    });
  });

  it('refreshes with the rotated refresh token; the old one is dead; none stored → reconnect', async () => {
    await withTumblr({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const first = await adapter.refresh!(withCreds(ctx, account));
      expect(first.credentials.refreshToken).not.toBe(account.credentials.refreshToken);
      expect(first.credentials.accessToken).not.toBe(account.credentials.accessToken);
      expect(first.credentials).toMatchObject({ blogUuid: MAIN_BLOG.uuid, blogName: MAIN_BLOG.name });
      expect(sim.log.filter((r) => r.path === '/v2/oauth2/token').at(-1)!.body).toMatchObject({ grant_type: 'refresh_token', refresh_token: account.credentials.refreshToken });
      expect((await platformFailure(adapter.refresh!(withCreds(ctx, account)))).kind).toBe('reconnect_required');
      const noRefresh = { ...account, credentials: { ...account.credentials, refreshToken: null } };
      expect((await platformFailure(adapter.refresh!(withCreds(ctx, noRefresh)))).kind).toBe('reconnect_required');
      const r = published(await publishWith(adapter, ctx, { ...account, credentials: first.credentials }, '<p>fresh</p>'));
      expect(sim.lookup(r.id)?.text).toBe('fresh');
    });
  });

  it('a revoked grant: the 401 asks for a refresh, the refused refresh for a reconnect; without a refresh token the 401 itself', async () => {
    await withTumblr({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.revokeGrant();
      const err = await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>'));
      expect({ kind: err.kind, status: err.details.status, code: err.details.platformCode, message: err.message }).toEqual({ kind: 'auth_expired', status: 401, code: '1016', message: 'Unable to authorize' });
      expect((await platformFailure(adapter.refresh!(withCreds(ctx, account)))).kind).toBe('reconnect_required');
      const noRefresh = { ...account, credentials: { ...account.credentials, refreshToken: null } };
      expect((await platformFailure(publishWith(adapter, ctx, noRefresh, '<p>x</p>'))).kind).toBe('reconnect_required');
    });
  });
});

describe('tumblr: blogs', () => {
  it('the blogs tool lists every blog of the account, the current one marked; selectAccount switches the channel', async () => {
    await withTumblr({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const blogs = (await adapter.runTool!('blogs', {}, withCreds(ctx, account))) as { id: string; name: string; current: boolean; primary: boolean }[];
      expect(blogs.map((b) => [b.id, b.name, b.primary, b.current])).toEqual([
        [SIDE_BLOG.uuid, SIDE_BLOG.name, false, false],
        [MAIN_BLOG.uuid, MAIN_BLOG.name, true, true],
      ]);
      const side = await adapter.selectAccount!(SIDE_BLOG.uuid, withCreds(ctx, account));
      expect(side).toMatchObject({ internalId: SIDE_BLOG.uuid, name: 'Sketches', profile: SIDE_BLOG.name });
      expect(side.credentials.accessToken).toBe(account.credentials.accessToken);
      const r = published(await publishWith(adapter, ctx, side, '<p>a sketch</p>'));
      expect(r.url).toBe(`https://acme-sketches.tumblr.com/post/${r.id}`);
      expect(sim.posts.find((p) => p.id === r.id)!.blogUuid).toBe(SIDE_BLOG.uuid);
      expect(lastPost(sim).path).toBe(`/v2/blog/${SIDE_BLOG.uuid}/posts`);
      // By name too; a blog of someone else is refused.
      expect((await adapter.selectAccount!(MAIN_BLOG.name, withCreds(ctx, side))).internalId).toBe(MAIN_BLOG.uuid);
      expect((await platformFailure(adapter.selectAccount!(OTHER_BLOG.uuid, withCreds(ctx, account)))).kind).toBe('rejected');
      expect((await platformFailure(adapter.runTool!('followers', {}, withCreds(ctx, account)))).kind).toBe('unsupported');
    });
  });

  it('a blog of another account is refused by Tumblr (403)', async () => {
    await withTumblr({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const forged = { ...account, credentials: { ...account.credentials, blogUuid: OTHER_BLOG.uuid, blogName: OTHER_BLOG.name } };
      const err = await platformFailure(publishWith(adapter, ctx, forged, '<p>not mine</p>'));
      expect({ kind: err.kind, status: err.details.status, message: err.message }).toEqual({ kind: 'rejected', status: 403, message: 'You do not have permission to post to this blog' });
      expect(sim.posts).toHaveLength(0);
    });
  });
});

describe('tumblr: posts', () => {
  it('maps HTML to NPF blocks and the settings to the post: title heading, link block, tags, source URL, state', async () => {
    await withTumblr({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const settings = { __type: 'tumblr', title: 'Spring sale', link: 'https://acme.example/sale', sourceUrl: 'https://source.example/a', tags: '#art, ink ,, spring sale', state: 'queue' };
      const r = published(await publishWith(adapter, ctx, account, '<p>Hello <strong>world</strong> 🌳 <a href="https://acme.example">site</a></p><ul><li>one</li></ul>', { settings }));
      expect(r.id).toMatch(/^\d{18}$/);
      expect(r.url).toBe(`https://acme-studio.tumblr.com/post/${r.id}`);
      const sent = lastPost(sim);
      expect(sent.headers['content-type']).toMatch(/^application\/json/);
      expect(sent.path).toBe(`/v2/blog/${MAIN_BLOG.uuid}/posts`);
      expect(sent.body).toEqual({
        content: [
          { type: 'text', subtype: 'heading1', text: 'Spring sale' },
          {
            type: 'text',
            text: 'Hello world 🌳 site',
            formatting: [
              { start: 6, end: 11, type: 'bold' },
              { start: 14, end: 18, type: 'link', url: 'https://acme.example' },
            ],
          },
          { type: 'text', subtype: 'unordered-list-item', text: 'one' },
          { type: 'link', url: 'https://acme.example/sale' },
        ],
        state: 'queue',
        tags: 'art,ink,spring sale',
        source_url: 'https://source.example/a',
      });
      expect(sim.posts.find((p) => p.id === r.id)).toMatchObject({ state: 'queue', tags: ['art', 'ink', 'spring sale'], sourceUrl: 'https://source.example/a' });
    });
  });

  it('pictures and a video go in the same multipart request, each part named by its block identifier, byte for byte', async () => {
    await withTumblr({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const [a, b, v] = [PNG(1), PNG(2), MP4(3, 4096)];
      ctx.media.set('a', new Blob([a], { type: 'image/png' }));
      ctx.media.set('b', new Blob([b], { type: 'image/png' }));
      ctx.media.set('v', new Blob([v], { type: 'video/mp4' }));
      const media = [image('a', { alt: 'A red dot', width: 640, height: 480 }), image('b'), video('v', v.length)];
      const r = published(await publishWith(adapter, ctx, account, '<p>Three things</p>', { media }));
      expect(sim.lookup(r.id)).toEqual({ text: 'Three things', mediaSha256: [sha(a), sha(b), sha(v)] });
      const post = sim.posts.find((p) => p.id === r.id)!;
      expect(post.content.slice(1)).toEqual([
        { type: 'image', media: [{ type: 'image/png', identifier: 'media-0', width: 640, height: 480 }], alt_text: 'A red dot' },
        { type: 'image', media: [{ type: 'image/png', identifier: 'media-1', width: 1, height: 1 }] },
        { type: 'video', provider: 'tumblr', media: { type: 'video/mp4', identifier: 'media-2', width: 1280, height: 720 } },
      ]);
      expect(post.files.map((f) => [f.identifier, f.size])).toEqual([
        ['media-0', a.length],
        ['media-1', b.length],
        ['media-2', v.length],
      ]);
      expect(String(lastPost(sim).headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    });
  });

  it('the simulator refuses what Tumblr refuses: unknown blocks, ranges past the text, media without its part, stray parts', async () => {
    await withTumblr({}, async (sim) => {
      const approved = await fetch(`${sim.origin}/oauth2/authorize?client_id=${TUMBLR_APP.clientId}&response_type=code&redirect_uri=http://localhost/cb&scope=basic%20write`, { redirect: 'manual' });
      const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
      const tok = (await (
        await fetch(`${sim.origin}/v2/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: TUMBLR_APP.clientId, client_secret: TUMBLR_APP.clientSecret, redirect_uri: 'http://localhost/cb' }),
        })
      ).json()) as { access_token: string; refresh_token?: string };
      expect(tok.refresh_token).toBeUndefined();
      const url = `${sim.origin}/v2/blog/${MAIN_BLOG.name}.tumblr.com/posts`;
      const auth = { authorization: `Bearer ${tok.access_token}` };
      const postJson = async (body: unknown) => {
        const res = await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as { meta: { status: number }; errors?: { code: number; detail: string }[] } };
      };
      const unknown = await postJson({ content: [{ type: 'poll', question: '?' }] });
      expect(unknown).toMatchObject({ status: 400, body: { meta: { status: 400, msg: 'Bad Request' }, errors: [{ title: 'Bad Request', code: 8001, detail: 'Unknown content block type "poll" at content[0]' }] } });
      // "🌳ab" is three code points (four UTF-16 units): a range to 4 is past the end.
      expect((await postJson({ content: [{ type: 'text', text: '🌳ab', formatting: [{ start: 1, end: 4, type: 'bold' }] }] })).body.errors![0]!.detail).toMatch(/outside the text \(3 characters\)/);
      expect((await postJson({ content: [{ type: 'text', text: '🌳ab', formatting: [{ start: 1, end: 3, type: 'bold' }] }] })).status).toBe(201);
      expect((await postJson({ content: [{ type: 'text', text: 'x', subtype: 'heading3' }] })).status).toBe(400);
      expect((await postJson({ content: [{ type: 'text', text: 'x', indent_level: 1 }] })).status).toBe(400);
      expect((await postJson({ content: [{ type: 'image', media: [{ type: 'image/png', identifier: 'media-0' }] }] })).body.errors![0]).toMatchObject({ code: 8005, detail: 'No file was uploaded for media identifier "media-0"' });
      expect((await postJson({ content: [] })).status).toBe(400);
      const postForm = async (post: Record<string, unknown>, files: { identifier: string; bytes: Buffer; type: string }[]) => {
        const form = npfMultipart(post, files.map((f) => ({ identifier: f.identifier, name: 'f.bin', type: f.type, blob: new Blob([f.bytes], { type: f.type }) })));
        const res = await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': form.contentType }, body: Readable.toWeb(form.body), duplex: 'half' });
        return { status: res.status, detail: ((await res.json()) as { errors?: { detail: string }[] }).errors?.[0]?.detail };
      };
      const text = { content: [{ type: 'text', text: 'x' }] };
      expect(await postForm(text, [{ identifier: 'stray', bytes: PNG(1), type: 'image/png' }])).toEqual({ status: 400, detail: 'Uploaded files not referenced by any block: stray' });
      const imageBlock = { content: [{ type: 'image', media: [{ type: 'image/png', identifier: 'i' }] }] };
      expect(await postForm(imageBlock, [{ identifier: 'i', bytes: MP4(1), type: 'image/png' }])).toEqual({ status: 400, detail: 'The file "i" is not an image' });
      expect((await postForm(imageBlock, [{ identifier: 'i', bytes: PNG(1), type: 'image/png' }])).status).toBe(201);
      // The post as a plain form field (no Content-Type: application/json) is refused.
      const plain = new FormData();
      plain.set('json', JSON.stringify(imageBlock));
      plain.set('i', new Blob([PNG(1)], { type: 'image/png' }), 'a.png');
      const refusedPlain = await fetch(url, { method: 'POST', headers: auth, body: plain });
      expect(refusedPlain.status).toBe(400);
      expect(((await refusedPlain.json()) as { errors: { detail: string }[] }).errors[0]!.detail).toBe('The "json" part must be sent with Content-Type: application/json');
      const noAuth = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: [{ type: 'text', text: 'x' }] }) });
      expect(noAuth.status).toBe(401);
      expect(sim.posts).toHaveLength(2);
    });
  });

  it('a thread item is not published: Tumblr has no replies', async () => {
    await withTumblr({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const err = await platformFailure(adapter.publish({ item: { content: '<p>reply</p>', media: [] }, settings: {}, replyTo: { id: '1', rootId: '1' }, idempotencyKey: 'r' }, withCreds(ctx, account)));
      expect(err.kind).toBe('unsupported');
      expect(sim.posts).toHaveLength(0);
    });
  });
});

describe('tumblr: reading back', () => {
  it('findRecent lists the blog’s posts newest first since a date, and looks in the queue for a queued post', async () => {
    await withTumblr({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = withCreds(ctx, account);
      const first = published(await publishWith(adapter, ctx, account, '<p>first</p>'));
      const second = published(await publishWith(adapter, ctx, account, '<p>second <b>bold</b></p>', { settings: { title: 'T' } }));
      const queued = published(await publishWith(adapter, ctx, account, '<p>later</p>', { settings: { state: 'queue' } }));
      const found = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 10 }, c);
      expect(found.map((p) => [p.id, p.content])).toEqual([
        [second.id, 'T\nsecond bold'],
        [first.id, 'first'],
      ]);
      expect(found[0]!.url).toBe(second.url);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 10 }, c)).toEqual([]);
      const inQueue = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 10, settings: { state: 'queue' } }, c);
      expect(inQueue.map((p) => p.id)).toEqual([queued.id]);
      expect(sim.log.some((l) => l.path.startsWith(`/v2/blog/${MAIN_BLOG.uuid}/posts/queue?`))).toBe(true);
      expect((await platformFailure(adapter.findRecent!({ since: new Date(0), limit: 5, replyTo: { id: first.id, rootId: first.id } }, c))).kind).toBe('unsupported');
    });
  });

  it('findRecent pages through more than one page of 20', async () => {
    await withTumblr({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      for (let i = 0; i < 23; i++) await publishWith(adapter, ctx, account, `<p>post ${i}</p>`);
      const found = await adapter.findRecent!({ since: new Date(0), limit: 50 }, withCreds(ctx, account));
      expect(found).toHaveLength(23);
      expect(found[0]!.content).toBe('post 22');
      expect(found.at(-1)!.content).toBe('post 0');
      expect(sim.log.filter((l) => l.method === 'GET' && l.path.includes('/posts?')).map((l) => new URL(l.path, 'http://x').searchParams.get('offset'))).toEqual(['0', '20']);
    });
  });

  it('postAnalytics reads the post’s note count', async () => {
    await withTumblr({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await publishWith(adapter, ctx, account, '<p>popular</p>'));
      sim.setNoteCount(r.id, 42);
      const series = await adapter.postAnalytics!(r.id, 7, withCreds(ctx, account));
      expect(series).toEqual([{ label: 'Notes', percentageChange: 0, data: [{ total: 42, date: new Date().toISOString().slice(0, 10) }] }]);
      expect(sim.log.some((l) => l.path === `/v2/blog/${MAIN_BLOG.uuid}/posts?id=${r.id}&npf=true`)).toBe(true);
      expect((await platformFailure(adapter.postAnalytics!('123', 7, withCreds(ctx, account)))).kind).toBe('rejected');
    });
  });
});

describe('tumblr: validation and errors', () => {
  const draft = (content: string, settings: Record<string, unknown> = {}, media: { type: 'image' | 'video'; mimeType: string; size: number }[] = []) => ({ settings, items: [{ content, media }] });

  it('validate names the field: an empty post, too many tags, a tag too long', () => {
    expect(adapter.validate(draft('<p> </p>'))).toEqual([{ path: 'value.0.content', code: 'empty', message: 'A Tumblr post needs some text, a title, a link or media' }]);
    expect(adapter.validate(draft('<p></p>', { title: 'Only a title' }))).toEqual([]);
    expect(adapter.validate(draft('', {}, [{ type: 'image', mimeType: 'image/png', size: 10 }]))).toEqual([]);
    const many = Array.from({ length: 31 }, (_, i) => `t${i}`).join(',');
    expect(adapter.validate(draft('<p>x</p>', { tags: many })).map((i) => [i.path, i.code])).toEqual([['settings.tags', 'too_many_tags']]);
    expect(adapter.validate(draft('<p>x</p>', { tags: `ok, ${'y'.repeat(141)}` })).map((i) => [i.path, i.code])).toEqual([['settings.tags', 'tag_too_long']]);
    expect(adapter.validate(draft('<p>x</p>', { tags: Array.from({ length: 30 }, (_, i) => `#t${i}`).join(', ') }))).toEqual([]);
  });

  const res = (status: number, body: unknown, headers: Record<string, string> = {}): PlatformResponse => ({ status, headers, body });
  const tumblrBody = (status: number, code: number, detail: string) => ({ meta: { status, msg: 'X' }, response: [], errors: [{ title: 'X', code, detail }] });

  it('classifies Tumblr’s answers', () => {
    expect(tumblrError(res(201, { meta: { status: 201, msg: 'Created' }, response: { id: '1' } }))).toBeUndefined();
    // The body's meta.status is read first, even under HTTP 200.
    const in200 = tumblrError(res(200, tumblrBody(400, 8001, 'Bad content')))!;
    expect([in200.kind, in200.message, in200.details.platformCode]).toEqual(['rejected', 'Bad content', '8001']);
    // Rate limits: the window that ran out says how long.
    const hour = tumblrError(res(429, tumblrBody(429, 0, 'Limit'), { 'x-ratelimit-perhour-remaining': '0', 'x-ratelimit-perhour-reset': '1800', 'x-ratelimit-perday-remaining': '10', 'x-ratelimit-perday-reset': '50000' }))!;
    expect([hour.kind, hour.details.retryAfterSeconds]).toEqual(['rate_limited', 1800]);
    const day = tumblrError(res(429, tumblrBody(429, 0, 'Limit'), { 'x-ratelimit-perhour-remaining': '5', 'x-ratelimit-perday-remaining': '0', 'x-ratelimit-perday-reset': '7200' }))!;
    expect(day.details.retryAfterSeconds).toBe(7200);
    expect(tumblrError(res(429, tumblrBody(429, 0, 'Limit'), { 'retry-after': '30' }))!.details.retryAfterSeconds).toBe(30);
    expect(tumblrError(res(429, tumblrBody(429, 0, 'Limit')))!.details.retryAfterSeconds).toBe(DEFAULT_RETRY_AFTER_SECONDS);
    expect(tumblrError(res(503, tumblrBody(503, 0, 'Down')))!.kind).toBe('transient');
    expect(tumblrError(res(400, tumblrBody(400, 8006, 'Upload failed')))!.kind).toBe('transient');
    expect(tumblrError(res(400, tumblrBody(400, 8023, 'You have reached your daily post limit')))!.kind).toBe('rejected');
    expect(tumblrError(res(401, tumblrBody(401, 1016, 'Unable to authorize')), { canRefresh: true })!.kind).toBe('auth_expired');
    expect(tumblrError(res(401, tumblrBody(401, 1016, 'Unable to authorize')), { canRefresh: false })!.kind).toBe('reconnect_required');
    expect(tumblrError(res(403, tumblrBody(403, 1017, 'This action requires the write scope')))!.kind).toBe('reconnect_required');
    expect(tumblrError(res(404, { meta: { status: 404, msg: 'Not Found' }, response: [] }))!.message).toBe('Not Found');
    expect(tumblrError(res(502, '<html>bad gateway</html>'))!.kind).toBe('transient');
  });
});
