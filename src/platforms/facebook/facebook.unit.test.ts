import { describe, expect, it } from 'vitest';
import { oauthConnector, platformFailure, runSimulatorContract, StreamOnlyBlob } from '../common/unit.testkit.js';
import {
  ADA,
  BAKERY,
  BLOG,
  drive,
  FACEBOOK_SCOPES,
  FB_APP,
  image,
  LABS,
  metaSimulator,
  MP4,
  originsFor,
  pending,
  PNG,
  post,
  published,
  rewriteFor,
  sha,
  video,
  withMeta,
  type TestCtx,
} from './facebook.testkit.js';
import { facebookError } from './errors.js';
import { createFacebookAdapter } from './index.js';

const adapter = createFacebookAdapter({ app: FB_APP });
const connect = oauthConnector(adapter, rewriteFor);

runSimulatorContract({ name: 'facebook', adapter, errorsIn200: false, start: () => metaSimulator(), origins: originsFor, connect });

describe('facebook connect and pages', () => {
  it('exchanges the code for a long-lived user token and connects the first Page with its Page token', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: BAKERY.id, name: BAKERY.name, profile: BAKERY.username, picture: BAKERY.picture, expiresAt: null });
      const c = account.credentials;
      expect(c).toMatchObject({ pageId: BAKERY.id, pageName: BAKERY.name, userId: ADA.id });
      // The stored Page token is one the simulator issued as a non-expiring Page token, from a long-lived user token.
      expect(sim.tokens.get(c.pageToken as string)).toMatchObject({ kind: 'fb-page', pageId: BAKERY.id, expiresAt: null, longLived: true });
      expect(sim.tokens.get(c.userToken as string)).toMatchObject({ kind: 'fb-user', longLived: true });
      expect(Date.parse(c.userTokenExpiresAt as string) - Date.now()).toBeGreaterThan(59 * 86_400_000);
      const dialog = sim.log.find((r) => r.path.startsWith('/v23.0/dialog/oauth'))!;
      const q = new URL(dialog.path, 'http://x').searchParams;
      expect(q.get('scope')).toBe(FACEBOOK_SCOPES.join(','));
      expect(q.get('client_id')).toBe(FB_APP.clientId);
      const exchanges = sim.log.filter((r) => r.path.startsWith('/v23.0/oauth/access_token'));
      expect(exchanges.map((r) => new URL(r.path, 'http://x').searchParams.get('grant_type'))).toEqual([null, 'fb_exchange_token']);
    });
  });

  it('a code is single use and bound to its redirect URI', async () => {
    await withMeta({}, async (sim, ctx) => {
      const begun = await adapter.beginConnect!({ state: 's1', redirectUri: 'https://tidings.example/cb' }, ctx);
      const back = new URL((await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' })).headers.get('location')!);
      const code = back.searchParams.get('code')!;
      const wrong = await platformFailure(adapter.completeConnect!({ code, redirectUri: 'https://tidings.example/other' }, ctx));
      expect(wrong.kind).toBe('rejected');
      expect(wrong.message).toMatch(/redirect_uri is identical/);
      await adapter.completeConnect!({ code, redirectUri: 'https://tidings.example/cb' }, ctx);
      const again = await platformFailure(adapter.completeConnect!({ code, redirectUri: 'https://tidings.example/cb' }, ctx));
      expect({ kind: again.kind, message: again.message }).toEqual({ kind: 'rejected', message: 'Facebook refused the authorisation: This authorization code has been used.' });
    });
  });

  it('refuses a login that did not grant every permission, naming them', async () => {
    await withMeta({}, async (sim, ctx) => {
      sim.users.get(ADA.id)!.declines = ['pages_manage_posts', 'read_insights'];
      const err = await platformFailure(connect(sim, ctx));
      expect(err.kind).toBe('rejected');
      expect(err.message).toContain('(pages_manage_posts, read_insights)');
    });
  });

  it('refuses a user who manages no Page', async () => {
    await withMeta({}, async (sim, ctx) => {
      sim.addUser({ id: '10000000000000009', name: 'Nobody' });
      sim.approveAs('10000000000000009');
      const err = await platformFailure(connect(sim, ctx));
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: 'Nobody manages no Facebook Page they can publish on' });
    });
  });

  it('says Facebook is not configured without an app', async () => {
    const err = await platformFailure(createFacebookAdapter({}).beginConnect!({ state: 's', redirectUri: 'http://localhost/cb' }, {} as TestCtx));
    expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'unsupported', message: 'Facebook Page is not configured' });
  });

  it('the pages tool lists the Pages; selectAccount switches to another with its own Page token', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      expect(await adapter.runTool!('pages', {}, c)).toEqual([
        { id: BAKERY.id, name: BAKERY.name, username: BAKERY.username, picture: BAKERY.picture, current: true },
        { id: LABS.id, name: LABS.name, username: LABS.username, picture: expect.any(String), current: false },
        { id: BLOG.id, name: BLOG.name, username: null, picture: expect.any(String), current: false },
      ]);
      const switched = await adapter.selectAccount!(LABS.id, c);
      expect(switched).toMatchObject({ internalId: LABS.id, name: LABS.name, profile: LABS.username });
      expect(sim.tokens.get(switched.credentials.pageToken as string)).toMatchObject({ kind: 'fb-page', pageId: LABS.id });
      const r = published(await post(adapter, ctx, switched, '<p>From the labs</p>'));
      expect(sim.feed.find((f) => f.id === r.id)).toMatchObject({ pageId: LABS.id, message: 'From the labs' });
      const foreign = await platformFailure(adapter.selectAccount!('103000000000003', c));
      expect(foreign.kind).toBe('rejected');
      expect((await platformFailure(adapter.runTool!('boards', {}, c))).kind).toBe('unsupported');
    });
  });

  it('an expired user token only stops listing Pages: publishing with the Page token goes on', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.tokens.get(account.credentials.userToken as string)!.expiresAt = Date.now() - 1000;
      const err = await platformFailure(adapter.runTool!('pages', {}, { ...ctx, credentials: account.credentials }));
      expect(err.kind).toBe('rejected');
      expect(err.message).toMatch(/reconnect the channel to choose another one/);
      published(await post(adapter, ctx, account, '<p>still posting</p>'));
    });
  });
});

describe('facebook text and link posts', () => {
  it('posts text with the link and the permalink Facebook gives', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await post(adapter, ctx, account, '<p>Fresh <strong>bread</strong> today</p><p>Come early</p>', { settings: { url: 'https://acme.example/bread' } }));
      expect(r.id).toMatch(new RegExp(`^${BAKERY.id}_\\d+$`));
      const stored = sim.feed.find((f) => f.id === r.id)!;
      expect(stored).toMatchObject({ message: 'Fresh bread today\nCome early', link: 'https://acme.example/bread', kind: 'status' });
      expect(r.url).toBe(stored.permalink);
      const call = sim.log.find((l) => l.method === 'POST' && l.path.startsWith(`/v23.0/${BAKERY.id}/feed`))!;
      expect(call.headers.authorization).toBe(`Bearer ${account.credentials.pageToken as string}`);
      expect(call.path).toContain('fields=id%2Cpermalink_url');
    });
  });

  it('sends a background preset only with short text, and validate says where it cannot go', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await post(adapter, ctx, account, '<p>Good morning!</p>', { settings: { text_format_preset_id: '106018623298955' } }));
      expect(sim.feed.find((f) => f.id === r.id)!.presetId).toBe('106018623298955');
    });
    const img = { type: 'image' as const, mimeType: 'image/png', size: 10 };
    const check = (settings: Record<string, unknown>, content = 'hi', media: (typeof img)[] = []) =>
      adapter.validate({ settings, items: [{ content, media }] }).map((i) => `${i.path} ${i.code}`);
    expect(check({ text_format_preset_id: '1' })).toEqual([]);
    expect(check({ text_format_preset_id: '1' }, 'x'.repeat(131))).toEqual(['settings.text_format_preset_id preset_too_long']);
    expect(check({ text_format_preset_id: '1', url: 'https://a.example' })).toEqual(['settings.text_format_preset_id preset_text_only']);
    expect(check({ text_format_preset_id: '1' }, 'hi', [img])).toEqual(['settings.text_format_preset_id preset_text_only']);
  });

  it('comments thread items on the first post as the Page, text only', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const root = published(await post(adapter, ctx, account, '<p>root</p>'));
      const reply = published(await post(adapter, ctx, account, '<p>first comment</p>', { replyTo: { id: root.id, rootId: root.id } }));
      const second = published(await post(adapter, ctx, account, '<p>second comment</p>', { replyTo: { id: reply.id, rootId: root.id } }));
      expect(sim.comments.map((c) => [c.id, c.parentId, c.from, c.message])).toEqual([
        [reply.id, root.id, BAKERY.id, 'first comment'],
        [second.id, root.id, BAKERY.id, 'second comment'],
      ]);
      expect(reply.url).toBe(`https://www.facebook.com/${root.id}?comment_id=${reply.id.split('_').pop()}`);
    });
  });

  it('refuses a repeated status with Facebook’s words', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      published(await post(adapter, ctx, account, '<p>same words</p>'));
      const err = await platformFailure(post(adapter, ctx, account, '<p>same words</p>'));
      expect({ kind: err.kind, code: err.details.platformCode, message: err.message }).toEqual({
        kind: 'rejected',
        code: '506',
        message: 'Duplicate Post: This status update is identical to the last one you posted. Try posting something different, or delete your previous update.',
      });
    });
  });

  it('finds the Page’s recent posts newest first', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const since = new Date(Date.now() - 1000);
      const a = published(await post(adapter, ctx, account, '<p>one</p>'));
      const b = published(await post(adapter, ctx, account, '<p>two</p>'));
      sim.feed.find((f) => f.id === a.id)!.createdAt -= 500;
      const recent = await adapter.findRecent!({ since, limit: 10 }, { ...ctx, credentials: account.credentials });
      expect(recent.map((r) => [r.id, r.content, r.url])).toEqual([
        [b.id, 'two', b.url],
        [a.id, 'one', a.url],
      ]);
    });
  });
});

describe('facebook reconciling a thread item', () => {
  const READER = '10000000000000002';

  it('findRecent with replyTo lists the Page’s own comments on the first item since then, newest first, reading past a page of readers’ comments', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const root = published(await post(adapter, ctx, account, '<p>root</p>'));
      const old = sim.addComment({ parentId: root.id, message: 'an older comment', from: BAKERY.id, at: Date.now() - 60_000 });
      const since = new Date(Date.now() - 1000);
      const first = published(await post(adapter, ctx, account, '<p>first comment</p>', { replyTo: { id: root.id, rootId: root.id } }));
      const second = published(await post(adapter, ctx, account, '<p>second comment</p>', { replyTo: { id: first.id, rootId: root.id } }));
      // A reader writes the same words, then more than a page of comments follows; the Page posts the same words too.
      const copy = sim.addComment({ parentId: root.id, message: 'second comment', from: READER });
      for (let i = 0; i < 110; i++) sim.addComment({ parentId: root.id, message: `reader ${i}`, from: READER });
      published(await post(adapter, ctx, account, '<p>second comment</p>'));

      const recent = await adapter.findRecent!({ since, limit: 50, replyTo: { id: first.id, rootId: root.id } }, c);
      expect(recent.map((r) => [r.id, r.content, r.url])).toEqual([
        [second.id, 'second comment', second.url],
        [first.id, 'first comment', first.url],
      ]);
      expect(recent.map((r) => r.id)).not.toContain(copy.id);
      expect(recent.map((r) => r.id)).not.toContain(old.id);
      expect(recent.every((r) => Date.parse(r.createdAt) >= since.getTime())).toBe(true);
      const reads = sim.log.filter((l) => l.method === 'GET' && l.path.startsWith(`/v23.0/${root.id}/comments`)).map((l) => new URL(l.path, 'http://x').searchParams);
      expect(reads).toHaveLength(2);
      expect(Object.fromEntries(reads[0]!)).toEqual({ fields: 'id,message,created_time,from', filter: 'toplevel', order: 'reverse_chronological', limit: '100' });
      expect(reads[1]!.get('after')).toBeTruthy();

      // `limit` bounds what is kept; reading stops once it is reached.
      const one = await adapter.findRecent!({ since, limit: 1, replyTo: { id: first.id, rootId: root.id } }, c);
      expect(one.map((r) => r.id)).toEqual([second.id]);
    });
  });

  it('the simulator lists comments as Graph does: pages and cursors, fields, filter and order checked, limit capped, token and object checked', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const root = published(await post(adapter, ctx, account, '<p>root</p>'));
      const stranger = '10000000000000099';
      for (let i = 0; i < 130; i++) sim.addComment({ parentId: root.id, message: `reader ${i}`, from: stranger, name: 'A Reader' });
      const reply = sim.addComment({ parentId: sim.comments[0]!.id, message: 'a reply', from: BAKERY.id });
      const get = async (path: string, token = account.credentials.pageToken as string) => {
        const res = await fetch(`${sim.origin}/v23.0/${path}`, { headers: { authorization: `Bearer ${token}` } });
        return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown>[]; paging?: { cursors: { after: string }; next?: string }; error?: Record<string, unknown> } };
      };

      const page = await get(`${root.id}/comments?fields=id,message,from{id}&limit=500`);
      expect(page.status).toBe(200);
      expect(page.body.data).toHaveLength(100);
      expect(page.body.data![0]).toEqual({ id: sim.comments[0]!.id, message: 'reader 0', from: { id: stranger } });
      expect(page.body.paging!.next).toMatch(new RegExp(`^https://graph\\.facebook\\.com/v23\\.0/${root.id}/comments\\?.*after=`));
      const rest = await get(`${root.id}/comments?limit=500&after=${page.body.paging!.cursors.after}`);
      expect(rest.body.data!.map((c) => c.message)).toEqual(Array.from({ length: 30 }, (_, i) => `reader ${100 + i}`));
      // Without `fields`, Graph's default ones; no `next` on the last page; replies only with filter=stream.
      expect(Object.keys(rest.body.data![0]!).sort()).toEqual(['created_time', 'from', 'id', 'message']);
      expect(rest.body.data![0]!.from).toEqual({ name: 'A Reader', id: stranger });
      expect(rest.body.paging!.next).toBeUndefined();
      expect((await get(`${root.id}/comments?filter=stream&limit=100&after=${page.body.paging!.cursors.after}`)).body.data!.map((c) => c.id)).toContain(reply.id);
      const newest = await get(`${root.id}/comments?order=reverse_chronological&limit=1`);
      expect(newest.body.data![0]!.id).toBe(sim.comments.at(-2)!.id);

      const refused = async (path: string, token?: string) => {
        const r = await get(path, token);
        return [r.status, r.body.error?.code, r.body.error?.error_subcode, r.body.error?.type];
      };
      expect(await refused(`${root.id}/comments?fields=id,nope`)).toEqual([400, 100, undefined, 'OAuthException']);
      expect(await refused(`${root.id}/comments?fields=id,from{id`)).toEqual([400, 2500, undefined, 'OAuthException']);
      expect(await refused(`${root.id}/comments?filter=all`)).toEqual([400, 100, undefined, 'OAuthException']);
      expect(await refused(`${root.id}/comments?order=newest`)).toEqual([400, 100, undefined, 'OAuthException']);
      expect(await refused(`${root.id}/comments?limit=-1`)).toEqual([400, 100, undefined, 'OAuthException']);
      expect(await refused(`${root.id}/comments?after=bm90LWEtY29tbWVudA`)).toEqual([400, 100, undefined, 'OAuthException']);
      expect(await refused(`${BAKERY.id}_999/comments`)).toEqual([400, 100, 33, 'GraphMethodException']);
      expect(await refused(`${root.id}/comments`, 'EAAnot-a-token')).toEqual([400, 190, undefined, 'OAuthException']);
      sim.expireAccessTokens();
      expect(await refused(`${root.id}/comments`)).toEqual([400, 190, 463, 'OAuthException']);
    });
  });
});

describe('facebook pictures, videos, reels and stories', () => {
  const chunked = createFacebookAdapter({ app: FB_APP, uploadChunkBytes: 40 });

  it('uploads several pictures unpublished and attaches them to one post, in order, with alt text', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const bytes = [PNG(1), PNG(2), PNG(3)];
      bytes.forEach((b, i) => ctx.media.set(`m${i}`, new StreamOnlyBlob([b], { type: 'image/png' })));
      const r = published(await post(adapter, ctx, account, '<p>three loaves</p>', { media: [image('m0', { alt: 'sourdough' }), image('m1'), image('m2')], settings: { url: 'https://acme.example/menu' } }));
      const stored = sim.feed.find((f) => f.id === r.id)!;
      expect(stored).toMatchObject({ kind: 'photo', mediaSha256: bytes.map(sha), message: 'three loaves\n\nhttps://acme.example/menu' });
      expect(stored.link).toBeUndefined();
      expect(stored.photoIds.map((id) => sim.photos.get(id)!.published)).toEqual([false, false, false]);
      expect(stored.photoIds.map((id) => sim.photos.get(id)!.alt ?? null)).toEqual(['sourdough', null, null]);
    });
  });

  it('a reel: start, the bytes in slices from what Facebook has, finish once, processing over several checks', async () => {
    await withMeta({ facebookVideoPolls: 2 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const bytes = MP4(7, 100); // three slices of 40 + 40 + 20 bytes
      ctx.media.set('v', new StreamOnlyBlob([bytes], { type: 'video/mp4' }));
      const first = pending(await post(chunked, ctx, account, '<p>Behind the <em>oven</em></p>', { media: [video('v', bytes.length)], settings: { post_type: 'reel' } }));
      expect(first.pollAfterMs).toBe(0);
      const answers = await drive(chunked, ctx, account, first);
      const done = published(answers.at(-1)!);
      const v = sim.videos.get(done.id)!;
      expect({ flavor: v.flavor, sha: v.sha256, description: v.description, published: v.published }).toEqual({ flavor: 'reel', sha: sha(bytes), description: 'Behind the oven', published: true });
      expect(done.url).toBe(`https://www.facebook.com/reel/${done.id}`);
      const uploads = sim.log.filter((l) => l.path === `/video-upload/v23.0/${done.id}`);
      expect(uploads.map((u) => [u.headers.offset, u.headers.file_size, u.headers.authorization])).toEqual([
        ['0', '100', `OAuth ${account.credentials.pageToken as string}`],
        ['40', '100', `OAuth ${account.credentials.pageToken as string}`],
        ['80', '100', `OAuth ${account.credentials.pageToken as string}`],
      ]);
      expect(sim.finishCalls).toEqual([done.id]);
      // started, three slices (each going on at once), finish, one processing check, live
      expect(answers.map((a) => (a.status === 'pending' ? (a.pollAfterMs ?? 'backoff') : a.status))).toEqual([0, 0, 0, 0, 'backoff', 'backoff', 'published']);
      // Checking a published reel again answers the same, without another finish.
      expect(await chunked.checkPublish!(first.token, { ...ctx, credentials: account.credentials })).toEqual(done);
      expect(sim.finishCalls).toEqual([done.id]);
      // A thread item is a comment on the reel's video, found there when reconciling.
      const c = published(await post(chunked, ctx, account, '<p>on the reel</p>', { replyTo: { id: done.id, rootId: done.id } }));
      const recent = await chunked.findRecent!({ since: new Date(Date.now() - 60_000), limit: 50, replyTo: { id: done.id, rootId: done.id } }, { ...ctx, credentials: account.credentials });
      expect(recent.map((r) => [r.id, r.content, r.url])).toEqual([[c.id, 'on the reel', c.url]]);
    });
  });

  it('a check that fails transiently is checked again with the same token; a token older than what Facebook has resumes from its bytes', async () => {
    await withMeta({ facebookVideoPolls: 1 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const bytes = MP4(9, 100);
      ctx.media.set('v', new Blob([bytes], { type: 'video/mp4' }));
      const first = pending(await post(chunked, ctx, account, '<p>again</p>', { media: [video('v', bytes.length)], settings: { post_type: 'reel' } }));
      const afterOne = pending(await chunked.checkPublish!(first.token, c));
      sim.inject({ path: /^\/v23\.0\/\d+\?fields=status/, status: 500, body: { error: { message: 'An unknown error has occurred.', type: 'OAuthException', code: 1, is_transient: true, fbtrace_id: 'x' } } });
      const transient = await platformFailure(chunked.checkPublish!(afterOne.token, c));
      expect(transient.kind).toBe('transient');
      // A crash lost the newer token: the first one goes on from the 40 bytes Facebook has, never re-sending them.
      const answers = await drive(chunked, ctx, account, first);
      const done = published(answers.at(-1)!);
      expect(sim.videos.get(done.id)!.sha256).toBe(sha(bytes));
      expect(sim.log.filter((l) => l.path.startsWith('/video-upload/')).map((u) => u.headers.offset)).toEqual(['0', '40', '80']);
      expect(sim.finishCalls).toEqual([done.id]);
    });
  });

  it('a reel Facebook cannot process fails with its reason', async () => {
    await withMeta({ facebookVideoPolls: 3 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      ctx.media.set('v', new Blob([Buffer.from('not a video at all')], { type: 'video/mp4' }));
      const first = pending(await post(adapter, ctx, account, '<p>broken</p>', { media: [video('v', 18)], settings: { post_type: 'reel' } }));
      const err = await platformFailure(drive(adapter, ctx, account, first));
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: "Facebook could not process the video: The video file you selected is in a format that we don't support." });
    });
  });

  it('a video in a post goes through graph-video’s resumable upload and becomes a Page video post', async () => {
    await withMeta({ facebookVideoPolls: 1, videoChunkSize: 48 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const bytes = MP4(3, 90);
      ctx.media.set('v', new StreamOnlyBlob([bytes], { type: 'video/mp4' }));
      const first = pending(await post(chunked, ctx, account, '<p>The full tour</p>', { media: [video('v', bytes.length)] }));
      const done = published((await drive(chunked, ctx, account, first)).at(-1)!);
      expect(done.url).toBe(`https://www.facebook.com/${BAKERY.id}/videos/${done.id}/`);
      expect(sim.videos.get(done.id)).toMatchObject({ flavor: 'video', sha256: sha(bytes), description: 'The full tour', published: true });
      expect(sim.feed.find((f) => f.videoId === done.id)).toMatchObject({ kind: 'video', message: 'The full tour' });
      const transfers = sim.log.filter((l) => l.method === 'POST' && l.path === `/v23.0/${BAKERY.id}/videos`);
      // start, three transfers (the adapter's slices of 40 + 40 + 10 bytes), finish
      expect(transfers).toHaveLength(1 + 3 + 1);
      expect(sim.finishCalls).toEqual([done.id]);
    });
  });

  it('a photo story: the picture uploaded unpublished, the story made by the check; checking again finds it instead of making another', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      ctx.media.set('s', new Blob([PNG(5)], { type: 'image/png' }));
      sim.inject({ path: /\/photo_stories$/, status: 503, body: { error: { message: 'Service temporarily unavailable', type: 'OAuthException', code: 2, is_transient: true, fbtrace_id: 'y' } } });
      const first = pending(await post(adapter, ctx, account, '<p>today</p>', { media: [image('s')], settings: { post_type: 'story' } }));
      expect(first.pollAfterMs).toBe(0);
      expect((await platformFailure(adapter.checkPublish!(first.token, { ...ctx, credentials: account.credentials }))).kind).toBe('transient');
      const done = published(await adapter.checkPublish!(first.token, { ...ctx, credentials: account.credentials }));
      expect(sim.stories).toEqual([expect.objectContaining({ postId: done.id, pageId: BAKERY.id, mediaType: 'photo', sha256: sha(PNG(5)) })]);
      expect(done.url).toBe(`https://www.facebook.com/stories/${BAKERY.id}/${done.id}/`);
      expect(await adapter.checkPublish!(first.token, { ...ctx, credentials: account.credentials })).toEqual(done);
      expect(sim.stories).toHaveLength(1);
      expect(sim.photos.size).toBe(1);
    });
  });

  it('a video story: uploaded, processed, finished once; its post id from the finish', async () => {
    await withMeta({ facebookVideoPolls: 2 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const bytes = MP4(4, 60);
      ctx.media.set('v', new Blob([bytes], { type: 'video/mp4' }));
      const first = pending(await post(chunked, ctx, account, '', { media: [video('v', bytes.length)], settings: { post_type: 'story' } }));
      const done = published((await drive(chunked, ctx, account, first)).at(-1)!);
      expect(sim.stories).toEqual([expect.objectContaining({ postId: done.id, mediaType: 'video', sha256: sha(bytes) })]);
      expect(await chunked.checkPublish!(first.token, { ...ctx, credentials: account.credentials })).toEqual(done);
      expect(sim.finishCalls).toHaveLength(1);
    });
  });

  it('validates stories and reels, naming the field', () => {
    const img = { type: 'image' as const, mimeType: 'image/png', size: 10 };
    const vid = { type: 'video' as const, mimeType: 'video/mp4', size: 10 };
    const check = (settings: Record<string, unknown>, media: (typeof img | typeof vid)[], items = 1) =>
      adapter.validate({ settings, items: [{ content: 'x', media }, ...Array.from({ length: items - 1 }, () => ({ content: 'c', media: [] }))] }).map((i) => `${i.path} ${i.code}`);
    expect(check({ post_type: 'story' }, [img])).toEqual([]);
    expect(check({ post_type: 'story' }, [])).toEqual(['value.0.image story_media']);
    expect(check({ post_type: 'story' }, [img, img])).toEqual(['value.0.image story_media']);
    expect(check({ post_type: 'story' }, [vid], 2)).toEqual(['value.1.content story_comments']);
    expect(check({ post_type: 'reel' }, [vid])).toEqual([]);
    expect(check({ post_type: 'reel' }, [img])).toEqual(['value.0.image reel_media']);
    expect(check({}, [img, img])).toEqual([]);
  });
});

describe('facebook insights and errors', () => {
  const DAY = 86_400_000;

  it('reports the Page’s daily figures over complete days', async () => {
    const now = Date.UTC(2026, 10, 21, 15, 30);
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.setPageInsights(BAKERY.id, [
        { date: '2026-11-18', page_total_media_view_unique: 100, page_media_view: 150, page_post_engagements: 7, page_daily_follows: 1 },
        { date: '2026-11-19', page_total_media_view_unique: 120, page_media_view: 190, page_post_engagements: 9, page_daily_follows: 0 },
        { date: '2026-11-20', page_total_media_view_unique: 200, page_media_view: 260, page_post_engagements: 12, page_daily_follows: 3 },
        // today is not complete and not asked for
        { date: '2026-11-21', page_total_media_view_unique: 999 },
      ]);
      const series = await adapter.analytics!(3, { ...ctx, clock: { now: () => now }, credentials: account.credentials });
      const by = Object.fromEntries(series.map((s) => [s.label, s]));
      expect(Object.keys(by)).toEqual(['Reach', 'Views', 'Engagements', 'New follows']);
      expect(by.Reach!.data).toEqual([
        { date: '2026-11-18', total: 100 },
        { date: '2026-11-19', total: 120 },
        { date: '2026-11-20', total: 200 },
      ]);
      expect(by['New follows']!.data.map((d) => d.total)).toEqual([1, 0, 3]);
      const call = new URL(sim.log.find((l) => l.path.includes('/insights'))!.path, 'http://x').searchParams;
      const end = Date.UTC(2026, 10, 21);
      expect([call.get('period'), call.get('since'), call.get('until')]).toEqual(['day', String((end - 3 * DAY) / 1000), String(end / 1000)]);
    });
  });

  it('reports a post’s lifetime figures, reactions summed over their kinds', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const root = published(await post(adapter, ctx, account, '<p>measured</p>'));
      sim.setPostInsights(root.id, { post_total_media_view_unique: 321, post_reactions_by_type_total: { like: 10, love: 4 }, post_clicks: 9 });
      const series = await adapter.postAnalytics!(root.id, 7, { ...ctx, credentials: account.credentials });
      expect(Object.fromEntries(series.map((s) => [s.label, s.data[0]!.total]))).toEqual({ Reach: 321, Reactions: 14, Clicks: 9 });
    });
  });

  it('maps Facebook’s codes and subcodes to kinds, keeping Facebook’s words', () => {
    const res = (error: Record<string, unknown>, headers: Record<string, string> = {}, status = 400) => ({ status, headers, body: { error: { message: 'msg', type: 'OAuthException', fbtrace_id: 'A', ...error } } });
    const kind = (error: Record<string, unknown>, headers?: Record<string, string>, status?: number) => facebookError(res(error, headers, status))?.kind;
    expect(kind({ code: 190, error_subcode: 463 })).toBe('auth_expired');
    expect(kind({ code: 190, error_subcode: 460 })).toBe('reconnect_required');
    expect(kind({ code: 200, message: '(#200) Requires pages_manage_posts' })).toBe('reconnect_required');
    expect(kind({ code: 10 })).toBe('reconnect_required');
    expect(kind({ code: 100, error_subcode: 1404078 })).toBe('reconnect_required');
    expect(kind({ code: 6000, error_subcode: 1363047 })).toBe('transient');
    expect(kind({ code: 1 })).toBe('transient');
    expect(kind({ code: 2, is_transient: true }, {}, 500)).toBe('transient');
    expect(kind({ code: 100, error_subcode: 1366046 })).toBe('rejected');
    const fast = facebookError(res({ code: 368, error_subcode: 1390008, error_user_title: 'You Can’t Post Right Now', error_user_msg: 'You’re posting too fast.' }))!;
    expect({ kind: fast.kind, wait: fast.details.retryAfterSeconds, message: fast.message }).toEqual({ kind: 'rate_limited', wait: 60, message: 'You Can’t Post Right Now: You’re posting too fast.' });
    const buc = JSON.stringify({ [BAKERY.id]: [{ type: 'pages', call_count: 100, total_cputime: 20, total_time: 30, estimated_time_to_regain_access: 12 }] });
    const limited = facebookError(res({ code: 32, message: '(#32) Page request limit reached' }, { 'x-business-use-case-usage': buc }))!;
    expect({ kind: limited.kind, wait: limited.details.retryAfterSeconds, message: limited.message }).toEqual({ kind: 'rate_limited', wait: 720, message: '(#32) Page request limit reached' });
    const policy = facebookError(res({ code: 368, error_user_title: 'Action Blocked', error_user_msg: 'This goes against our Community Standards.' }))!;
    expect({ kind: policy.kind, message: policy.message, code: policy.details.platformCode }).toEqual({ kind: 'rejected', message: 'Action Blocked: This goes against our Community Standards.', code: '368' });
    expect(facebookError({ status: 200, headers: {}, body: { id: '1' } })).toBeUndefined();
  });
});
