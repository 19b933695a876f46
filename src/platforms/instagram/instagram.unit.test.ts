import { describe, expect, it } from 'vitest';
import { runInstagramContract } from '../common/meta-unit.testkit.js';
import { oauthConnector, platformFailure } from '../common/unit.testkit.js';
import type { MetaSimulator } from '../common/meta.simulator.js';
import {
  ADA,
  addMedia,
  BAKERY,
  drive,
  IG_APP,
  IG_BAKERY,
  IG_LABS,
  image,
  MP4,
  pending,
  JPEG,
  PNG,
  post,
  published,
  rewriteFor,
  sha,
  video,
  withMeta,
} from './instagram.testkit.js';
import type { PlatformAdapter } from '../platform.js';
import { instagramError, PUBLISHING_LIMIT_WAIT_SECONDS } from './errors.js';
import { createInstagramAdapter } from './index.js';

const adapter = createInstagramAdapter({ app: IG_APP });
const connect = oauthConnector(adapter, rewriteFor);

runInstagramContract('instagram', adapter);

const containerCalls = (sim: MetaSimulator) => sim.log.filter((l) => l.method === 'POST' && /^\/v23\.0\/\d+\/media$/.test(l.path));

describe('instagram connect and accounts', () => {
  it('connects the Instagram account of the first Page that has one, posting with the Page token', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: IG_BAKERY.id, name: IG_BAKERY.name, profile: IG_BAKERY.username, picture: IG_BAKERY.profilePictureUrl, expiresAt: null });
      expect(account.credentials).toMatchObject({ igUserId: IG_BAKERY.id, username: IG_BAKERY.username, pageId: BAKERY.id, userId: ADA.id });
      expect(sim.tokens.get(account.credentials.pageToken as string)).toMatchObject({ kind: 'fb-page', pageId: BAKERY.id, expiresAt: null });
      const dialog = new URL(sim.log.find((r) => r.path.startsWith('/v23.0/dialog/oauth'))!.path, 'http://x').searchParams;
      expect(dialog.get('scope')).toBe('instagram_basic,pages_show_list,pages_read_engagement,business_management,instagram_content_publish,instagram_manage_comments,instagram_manage_insights');
      expect(dialog.get('client_id')).toBe(IG_APP.clientId);
    });
  });

  it('the accounts tool lists the linked accounts; selectAccount switches to another', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      expect(await adapter.runTool!('accounts', {}, c)).toEqual([
        { id: IG_BAKERY.id, username: IG_BAKERY.username, name: IG_BAKERY.name, picture: IG_BAKERY.profilePictureUrl, page: { id: BAKERY.id, name: BAKERY.name }, current: true },
        { id: IG_LABS.id, username: IG_LABS.username, name: IG_LABS.name, picture: null, page: { id: '102000000000002', name: 'Acme Labs' }, current: false },
      ]);
      const switched = await adapter.selectAccount!(IG_LABS.id, c);
      expect(switched).toMatchObject({ internalId: IG_LABS.id, profile: IG_LABS.username });
      expect(switched.credentials).toMatchObject({ igUserId: IG_LABS.id, pageId: '102000000000002' });
      expect((await platformFailure(adapter.selectAccount!('17841499999999999', c))).kind).toBe('rejected');
    });
  });

  it('refuses a user whose Pages have no Instagram account', async () => {
    await withMeta({}, async (sim, ctx) => {
      sim.addUser({ id: '10000000000000007', name: 'Blogger' });
      sim.pages.get('104000000000004')!.managers.push('10000000000000007');
      sim.approveAs('10000000000000007');
      const err = await platformFailure(connect(sim, ctx));
      expect(err.kind).toBe('rejected');
      expect(err.message).toMatch(/^No Instagram Business or Creator account is linked to the Facebook Pages Blogger manages/);
    });
  });

  it('searches licensed audio for reels', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const found = await adapter.runTool!('audioSearch', { q: 'night', type: 'music' }, { ...ctx, credentials: account.credentials });
      expect(found).toEqual([{ id: '17900000000000002', type: 'music', title: 'Night Drive', artist: 'Neon', image: null, durationMs: 45_000 }]);
      const call = new URL(sim.log.find((l) => l.path.startsWith('/v23.0/ig_audio'))!.path, 'http://x').searchParams;
      expect([call.get('audio_type'), call.get('user_id'), call.get('search_query')]).toEqual(['music', IG_BAKERY.id, 'night']);
    });
  });
});

describe('instagram containers', () => {
  it('a picture: one container from its public URL, published at once, the permalink read back', async () => {
    await withMeta({}, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const pic = image('p1', { alt: 'a loaf' });
      addMedia(ctx, server, pic, JPEG(11));
      const r = published(await post(adapter, ctx, account, '<p>Fresh <strong>bread</strong></p>', { media: [pic], settings: { post_type: 'post', collaborators: [{ label: '@friend.bakery' }] } }));
      const media = sim.igMedia.find((m) => m.id === r.id)!;
      expect(media).toMatchObject({ caption: 'Fresh bread', productType: 'FEED', mediaType: 'IMAGE', mediaSha256: [sha(JPEG(11))], collaborators: ['friend.bakery'] });
      expect(r.url).toBe(`https://www.instagram.com/p/${media.shortcode}/`);
      expect(containerCalls(sim).map((c) => c.body)).toEqual([{ image_url: pic.path, alt_text: 'a loaf', caption: 'Fresh bread', collaborators: ['friend.bakery'] }]);
      expect(server.hits.get(new URL(pic.path).pathname)).toBe(1);
      expect(sim.mediaPublishCalls).toEqual([media.containerId]);
    });
  });

  it('a reel processed over several checks, with trial and audio settings; a transient check is simply checked again', async () => {
    await withMeta({ videoPolls: 3 }, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const clip = video('v1', 80);
      addMedia(ctx, server, clip, MP4(1, 80));
      const settings = { post_type: 'post', is_trial_reel: true, graduation_strategy: 'SS_PERFORMANCE', audio: { id: '17900000000000001', audio_volume: 70 } };
      const first = pending(await post(adapter, ctx, account, '<p>Kneading</p>', { media: [clip], settings }));
      expect(containerCalls(sim).map((x) => x.body)).toEqual([
        { video_url: clip.path, media_type: 'REELS', trial_params: { graduation_strategy: 'SS_PERFORMANCE' }, audio_configuration: { audio_id: '17900000000000001', audio_volume: 70 }, caption: 'Kneading' },
      ]);
      const second = pending(await adapter.checkPublish!(first.token, c));
      sim.inject({ path: /^\/v23\.0\/\d+\?fields=status_code/, status: 500, body: { error: { message: 'An unexpected error has occurred. Please retry your request later.', type: 'OAuthException', code: 2, is_transient: true, fbtrace_id: 'z' } } });
      expect((await platformFailure(adapter.checkPublish!(second.token, c))).kind).toBe('transient');
      const done = published((await drive(adapter, ctx, account, second)).at(-1)!);
      const media = sim.igMedia.find((m) => m.id === done.id)!;
      expect(media).toMatchObject({ productType: 'REELS', caption: 'Kneading', trialGraduation: 'SS_PERFORMANCE', mediaSha256: [sha(MP4(1, 80))] });
      expect(done.url).toBe(`https://www.instagram.com/reel/${media.shortcode}/`);
      expect(containerCalls(sim)).toHaveLength(1);
      expect(sim.mediaPublishCalls).toHaveLength(1);
    });
  });

  it('a container already PUBLISHED is recognised: checking an old token finds the media, never publishing again', async () => {
    await withMeta({ videoPolls: 2 }, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const clip = video('v2', 64);
      addMedia(ctx, server, clip, MP4(2, 64));
      const first = pending(await post(adapter, ctx, account, '<p>Only once</p>', { media: [clip], settings: { post_type: 'post' } }));
      const done = published((await drive(adapter, ctx, account, first)).at(-1)!);
      // As if the answer to media_publish had been lost in a crash: the stored token is still the first one.
      expect(await adapter.checkPublish!(first.token, { ...ctx, credentials: account.credentials })).toEqual(done);
      expect(sim.mediaPublishCalls).toHaveLength(1);
      expect(sim.igMedia).toHaveLength(1);
    });
  });

  it('a carousel: items then the carousel made once they are processed (one step per check), published once', async () => {
    await withMeta({ videoPolls: 2 }, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const items = [image('c0'), video('c1', 70), image('c2', { type: 'image/jpeg', ext: 'jpg' })];
      const bytes = [JPEG(20), MP4(21, 70), JPEG(22)];
      items.forEach((m, i) => addMedia(ctx, server, m, bytes[i]!));
      const first = pending(await post(adapter, ctx, account, '<p>Three things</p>', { media: items, settings: { post_type: 'post', collaborators: [{ label: 'pal' }] } }));
      const answers = await drive(adapter, ctx, account, first);
      const done = published(answers.at(-1)!);
      const media = sim.igMedia.find((m) => m.id === done.id)!;
      expect(media).toMatchObject({ mediaType: 'CAROUSEL_ALBUM', caption: 'Three things', collaborators: ['pal'], mediaSha256: bytes.map(sha) });
      const calls = containerCalls(sim).map((x) => x.body as Record<string, unknown>);
      expect(calls.slice(0, 3)).toEqual([
        { image_url: items[0]!.path, is_carousel_item: true },
        { video_url: items[1]!.path, is_carousel_item: true, media_type: 'VIDEO' },
        { image_url: items[2]!.path, is_carousel_item: true },
      ]);
      expect(calls[3]).toEqual({ caption: 'Three things', collaborators: ['pal'], media_type: 'CAROUSEL', children: [...sim.containers.values()].filter((c) => c.isCarouselItem).map((c) => c.id).join(',') });
      expect(calls).toHaveLength(4);
      expect(sim.mediaPublishCalls).toHaveLength(1);
    });
  });

  it('a story: one STORIES container, no caption, published by the check, the story URL; found again, never published twice', async () => {
    await withMeta({}, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const pic = image('s1', { type: 'image/jpeg', ext: 'jpg' });
      addMedia(ctx, server, pic, JPEG(30));
      const first = pending(await post(adapter, ctx, account, '<p>ignored caption</p>', { media: [pic], settings: { post_type: 'story', collaborators: [] } }));
      expect(first.pollAfterMs).toBe(0);
      const r = published((await drive(adapter, ctx, account, first)).at(-1)!);
      // Checking again after it went out (a lost answer) finds the story instead of publishing again.
      expect(await adapter.checkPublish!(first.token, { ...ctx, credentials: account.credentials })).toEqual(r);
      expect(sim.mediaPublishCalls).toHaveLength(1);
      expect(containerCalls(sim).map((x) => x.body)).toEqual([{ image_url: pic.path, media_type: 'STORIES' }]);
      expect(sim.igMedia.find((m) => m.id === r.id)).toMatchObject({ productType: 'STORY', caption: '' });
      expect(r.url).toMatch(/^https:\/\/www\.instagram\.com\/stories\/acme\.bakery\/\d+\/$/);
    });
  });

  it('a container that ends ERROR fails the post with Instagram’s reason', async () => {
    await withMeta({ videoPolls: 2 }, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const clip = video('bad', 64);
      addMedia(ctx, server, clip, MP4(5, 64));
      sim.failNextContainers('The video is too short: reels must be at least 3 seconds (2207026)');
      const first = pending(await post(adapter, ctx, account, '<p>short</p>', { media: [clip], settings: { post_type: 'post' } }));
      const err = await platformFailure(drive(adapter, ctx, account, first));
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: 'Instagram could not process the media: The video is too short: reels must be at least 3 seconds (2207026)' });
      expect(sim.mediaPublishCalls).toEqual([]);
    });
  });

  it('a picture Instagram cannot download is worth retrying and makes no container; a WebP is refused with Instagram’s words', async () => {
    await withMeta({}, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      ctx.media.set('gone', new Blob([JPEG(1)]));
      const missing = await platformFailure(post(adapter, ctx, account, '<p>x</p>', { media: [image('gone')], settings: { post_type: 'post' } }));
      expect({ kind: missing.kind, code: missing.details.platformCode }).toEqual({ kind: 'transient', code: '9004/2207052' });
      const webp = image('w', { type: 'image/webp', ext: 'webp' });
      addMedia(ctx, server, webp, Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'), Buffer.alloc(20)]));
      const refused = await platformFailure(post(adapter, ctx, account, '<p>y</p>', { media: [webp], settings: { post_type: 'post' } }));
      expect({ kind: refused.kind, message: refused.message }).toEqual({ kind: 'rejected', message: 'Unsupported format: The image format is not supported. Only JPEG images can be published.' });
      // a PNG too: Instagram publishes JPEG only
      const png = image('p', { type: 'image/png', ext: 'png' });
      addMedia(ctx, server, png, PNG(2));
      const pngRefused = await platformFailure(post(adapter, ctx, account, '<p>z</p>', { media: [png], settings: { post_type: 'post' } }));
      expect({ kind: pngRefused.kind, code: pngRefused.details.platformCode, message: pngRefused.message }).toEqual({
        kind: 'rejected',
        code: '9004/2207005',
        message: 'Unsupported format: The image format is not supported. Only JPEG images can be published.',
      });
      expect(sim.containers.size).toBe(0);
    });
  });

  it('over the 24-hour publishing limit: pending on the same container until Instagram takes it', async () => {
    await withMeta({ publishingLimit: 1 }, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const [a, b] = [image('l1'), image('l2')];
      addMedia(ctx, server, a, JPEG(41));
      addMedia(ctx, server, b, JPEG(42));
      published(await post(adapter, ctx, account, '<p>first of the day</p>', { media: [a], settings: { post_type: 'post' } }));
      const held = pending(await post(adapter, ctx, account, '<p>second of the day</p>', { media: [b], settings: { post_type: 'post' } }));
      expect(held.pollAfterMs).toBe(PUBLISHING_LIMIT_WAIT_SECONDS * 1000);
      // The day's first post ages out of the rolling 24 hours.
      sim.igMedia[0]!.timestamp -= 86_400_000;
      const done = published(await adapter.checkPublish!(held.token, { ...ctx, credentials: account.credentials }));
      expect(sim.igMedia.find((m) => m.id === done.id)!.caption).toBe('second of the day');
      expect(sim.containers.size).toBe(2);
    });
  });

  it('thread items are comments on the published media; the comment links to it', async () => {
    await withMeta({}, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const pic = image('t1');
      addMedia(ctx, server, pic, JPEG(50));
      const root = published(await post(adapter, ctx, account, '<p>root</p>', { media: [pic], settings: { post_type: 'post' } }));
      const first = published(await post(adapter, ctx, account, '<p>first comment #tag</p>', { replyTo: { id: root.id, rootId: root.id } }));
      expect(sim.comments).toEqual([expect.objectContaining({ id: first.id, parentId: root.id, message: 'first comment #tag', from: IG_BAKERY.id })]);
      expect(first.url).toBe(root.url);
    });
  });

  it('finds recent media with their captions, newest first', async () => {
    await withMeta({}, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const since = new Date(Date.now() - 60_000);
      const [a, b] = [image('r1'), image('r2')];
      addMedia(ctx, server, a, JPEG(61));
      addMedia(ctx, server, b, JPEG(62));
      const one = published(await post(adapter, ctx, account, '<p>one</p>', { media: [a], settings: { post_type: 'post' } }));
      const two = published(await post(adapter, ctx, account, '<p>two</p>', { media: [b], settings: { post_type: 'post' } }));
      sim.igMedia.find((m) => m.id === one.id)!.timestamp -= 5000;
      const recent = await adapter.findRecent!({ since, limit: 10 }, { ...ctx, credentials: account.credentials });
      expect(recent.map((r) => [r.id, r.content, r.url])).toEqual([
        [two.id, 'two', two.url],
        [one.id, 'one', one.url],
      ]);
    });
  });
});

describe('instagram reconciling a thread item', () => {
  const OTHER = { id: '17841499999999999', username: 'someone.else' };

  it('findRecent with replyTo lists the account’s own comments on the first item, not others’, reading past a page of 50', async () => {
    await withMeta({}, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const pic = image('rc');
      addMedia(ctx, server, pic, JPEG(70));
      const root = published(await post(adapter, ctx, account, '<p>root</p>', { media: [pic], settings: { post_type: 'post' } }));
      const old = sim.addComment({ parentId: root.id, message: 'an older comment', from: IG_BAKERY.id, at: Date.now() - 60_000 });
      const since = new Date(Date.now() - 1000);
      const first = published(await post(adapter, ctx, account, '<p>first comment</p>', { replyTo: { id: root.id, rootId: root.id } }));
      const second = published(await post(adapter, ctx, account, '<p>second comment</p>', { replyTo: { id: first.id, rootId: root.id } }));
      // Another account writes the same words, then more than a page of comments follows.
      const copy = sim.addComment({ parentId: root.id, message: 'second comment', from: OTHER.id, name: OTHER.username });
      for (let i = 0; i < 60; i++) sim.addComment({ parentId: root.id, message: `nice ${i}`, from: OTHER.id, name: OTHER.username });
      // The account was renamed since it was connected: its comments are still recognised.
      sim.igUsers.get(IG_BAKERY.id)!.username = 'acme.bakery.renamed';

      const recent = await adapter.findRecent!({ since, limit: 50, replyTo: { id: first.id, rootId: root.id } }, c);
      expect(recent.map((r) => [r.id, r.content, r.url])).toEqual([
        [second.id, 'second comment', second.url],
        [first.id, 'first comment', first.url],
      ]);
      expect(recent.map((r) => r.id)).not.toContain(copy.id);
      expect(recent.map((r) => r.id)).not.toContain(old.id);
      const reads = sim.log.filter((l) => l.method === 'GET' && l.path.startsWith(`/v23.0/${root.id}/comments`)).map((l) => new URL(l.path, 'http://x').searchParams);
      expect(reads).toHaveLength(2);
      expect(Object.fromEntries(reads[0]!)).toEqual({ fields: 'id,text,timestamp,username', limit: '50' });
      expect(reads[1]!.get('after')).toBeTruthy();
    });
  });

  it('the simulator lists media comments as Instagram does: newest first, 50 a page at most, fields and token checked', async () => {
    await withMeta({}, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const pic = image('rs');
      addMedia(ctx, server, pic, JPEG(71));
      const root = published(await post(adapter, ctx, account, '<p>root</p>', { media: [pic], settings: { post_type: 'post' } }));
      for (let i = 0; i < 55; i++) sim.addComment({ parentId: root.id, message: `nice ${i}`, from: OTHER.id, name: OTHER.username });
      const get = async (path: string, token = account.credentials.pageToken as string) => {
        const res = await fetch(`${sim.origin}/v23.0/${path}`, { headers: { authorization: `Bearer ${token}` } });
        return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown>[]; paging?: { cursors: { after: string }; next?: string }; error?: Record<string, unknown> } };
      };
      const page = await get(`${root.id}/comments?fields=id,text,from{username}&limit=100`);
      expect(page.body.data).toHaveLength(50);
      expect(page.body.data![0]).toEqual({ id: sim.comments.at(-1)!.id, text: 'nice 54', from: { username: OTHER.username } });
      expect(page.body.paging!.next).toMatch(/^https:\/\/graph\.facebook\.com\/v23\.0\/\d+\/comments\?.*after=/);
      const rest = await get(`${root.id}/comments?after=${page.body.paging!.cursors.after}`);
      expect(rest.body.data!.map((x) => x.text)).toEqual(['nice 4', 'nice 3', 'nice 2', 'nice 1', 'nice 0']);
      expect(Object.keys(rest.body.data![0]!).sort()).toEqual(['id', 'text', 'timestamp']);
      expect(rest.body.paging!.next).toBeUndefined();
      const refused = async (path: string, token?: string) => {
        const r = await get(path, token);
        return [r.status, r.body.error?.code, r.body.error?.error_subcode];
      };
      expect(await refused(`${root.id}/comments?fields=message`)).toEqual([400, 100, undefined]);
      expect(await refused(`${root.id}/comments?fields=from{name}`)).toEqual([400, 100, undefined]);
      expect(await refused(`17900000000000999/comments`)).toEqual([400, 100, 33]);
      sim.revokeAccessTokens();
      expect(await refused(`${root.id}/comments`)).toEqual([400, 190, 460]);
    });
  });
});

describe('instagram validation, insights and errors', () => {
  const img = (o: Partial<{ mimeType: string; size: number; width: number; height: number }> = {}) => ({ type: 'image' as const, mimeType: 'image/jpeg', size: 1000, width: 1080, height: 1080, ...o });
  const vid = (duration: number) => ({ type: 'video' as const, mimeType: 'video/mp4', size: 1000, duration });
  const check = (settings: Record<string, unknown>, media: (ReturnType<typeof img> | ReturnType<typeof vid>)[], items = 1, a: PlatformAdapter = adapter) =>
    a.validate({ settings, items: [{ content: 'caption', media }, ...Array.from({ length: items - 1 }, () => ({ content: 'c', media: [] }))] }).map((i) => `${i.path} ${i.code}`);

  it('validates stories, trial reels, audio, collaborators and feed picture shapes, naming the field', () => {
    expect(check({ post_type: 'post' }, [img()])).toEqual([]);
    expect(check({ post_type: 'story' }, [img(), img()])).toEqual(['value.0.image story_media']);
    expect(check({ post_type: 'story' }, [img()], 2)).toEqual(['value.1.content story_comments']);
    expect(check({ post_type: 'story' }, [vid(61)])).toEqual(['value.0.image story_duration']);
    expect(check({ post_type: 'post', is_trial_reel: true }, [img()])).toEqual(['settings.is_trial_reel trial_reel']);
    expect(check({ post_type: 'post', is_trial_reel: true }, [vid(30)])).toEqual([]);
    expect(check({ post_type: 'post', audio: { id: '1' } }, [img(), vid(10)])).toEqual(['settings.audio audio_reel_only']);
    expect(check({ post_type: 'post', collaborators: [{ label: 'a' }, { label: 'b' }, { label: 'c' }, { label: 'd' }] }, [img()])).toEqual(['settings.collaborators collaborators_max']);
    expect(check({ post_type: 'story', collaborators: [{ label: 'a' }] }, [img()])).toEqual(['settings.collaborators collaborators_story']);
    expect(check({ post_type: 'post' }, [img({ width: 1000, height: 2000 })])).toEqual(['value.0.image.0 media_aspect_ratio']);
    expect(check({ post_type: 'story' }, [img({ width: 1000, height: 2000 })])).toEqual([]);
    expect(check({ post_type: 'post' }, [img(), vid(61)])).toEqual(['value.0.image.1 carousel_video_duration']);
    expect(adapter.validate({ settings: { post_type: 'post' }, items: [{ content: Array.from({ length: 31 }, (_, i) => `#t${i}`).join(' '), media: [img()] }] }).map((i) => i.code)).toEqual(['hashtags']);
  });

  it('reports daily reach and new followers, and the period’s totals', async () => {
    const now = Date.UTC(2026, 10, 21, 9);
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.setInstagramInsights(IG_BAKERY.id, [
        { date: '2026-11-19', reach: 50, follower_count: 2, views: 300, likes: 20, comments: 3, shares: 1, saves: 4 },
        { date: '2026-11-20', reach: 80, follower_count: 5, views: 500, likes: 30, comments: 2, shares: 0, saves: 6 },
      ]);
      const series = await adapter.analytics!(2, { ...ctx, clock: { now: () => now }, credentials: account.credentials });
      const by = Object.fromEntries(series.map((s) => [s.label, s]));
      expect(by.Reach!.data).toEqual([
        { date: '2026-11-19', total: 50 },
        { date: '2026-11-20', total: 80 },
      ]);
      expect(by.Reach!.percentageChange).toBe(60);
      expect(by['New followers']!.data.map((d) => d.total)).toEqual([2, 5]);
      expect(Object.fromEntries(['Views', 'Likes', 'Comments', 'Shares', 'Saves'].map((l) => [l, by[l]!.data[0]!.total]))).toEqual({ Views: 800, Likes: 50, Comments: 5, Shares: 1, Saves: 10 });
    });
  });

  it('reports one media’s lifetime figures', async () => {
    await withMeta({}, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const pic = image('m');
      addMedia(ctx, server, pic, JPEG(70));
      const r = published(await post(adapter, ctx, account, '<p>measured</p>', { media: [pic], settings: { post_type: 'post' } }));
      sim.setMediaInsights(r.id, { views: 900, reach: 700, likes: 40, comments: 6, shares: 2, saved: 9 });
      const series = await adapter.postAnalytics!(r.id, 7, { ...ctx, credentials: account.credentials });
      expect(Object.fromEntries(series.map((s) => [s.label, s.data[0]!.total]))).toEqual({ Views: 900, Reach: 700, Likes: 40, Comments: 6, Shares: 2, Saves: 9 });
    });
  });

  it('maps the publishing subcodes to kinds', () => {
    const res = (error: Record<string, unknown>, headers: Record<string, string> = {}) => ({ status: 400, headers, body: { error: { message: 'msg', type: 'OAuthException', fbtrace_id: 'A', ...error } } });
    const limit = instagramError(res({ code: 9, error_subcode: 2207042, error_user_title: 'Reached publishing limit', error_user_msg: 'You reached the maximum number of posts.' }))!;
    expect({ kind: limit.kind, wait: limit.details.retryAfterSeconds, message: limit.message }).toEqual({ kind: 'rate_limited', wait: 3600, message: 'Reached publishing limit: You reached the maximum number of posts.' });
    expect(instagramError(res({ code: 9007, error_subcode: 2207027, message: 'Media ID is not available' }))!.kind).toBe('transient');
    expect(instagramError(res({ code: 9004, error_subcode: 2207052 }))!.kind).toBe('transient');
    expect(instagramError(res({ code: 100, error_subcode: 2207005 }))!.kind).toBe('rejected');
    expect(instagramError(res({ code: 100, error_subcode: 2207001, message: 'spam' }))!.kind).toBe('rejected');
    expect(instagramError(res({ code: 190, error_subcode: 460 }))!.kind).toBe('reconnect_required');
    expect(instagramError(res({ code: 10 }))!.kind).toBe('reconnect_required');
    expect(instagramError(res({ code: 80002, message: 'too many calls' }, { 'x-business-use-case-usage': JSON.stringify({ [IG_BAKERY.id]: [{ type: 'instagram', estimated_time_to_regain_access: 3 }] }) }))!.details.retryAfterSeconds).toBe(180);
  });
});
