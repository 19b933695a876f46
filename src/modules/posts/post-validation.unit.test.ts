import { describe, expect, it } from 'vitest';
import { MiB } from '../../platforms/common/schemas.js';
import { PLATFORM_IDENTIFIERS, type PlatformIdentifier, type PostDraft, type ValidationIssue } from '../../platforms/platform.js';
import { createPlatformRegistry } from '../../platforms/registry.js';
import { normaliseSettings, validatePostForPlatform, type ChannelState, type DraftMedia } from './post-validation.js';

const adapters = createPlatformRegistry({ apps: {} });
const ok: ChannelState = { name: 'Chan', disabled: false, refreshNeeded: false, connected: true };
const X_SETTINGS = { __type: 'x', who_can_reply_post: 'everyone' };

function img(o: Partial<DraftMedia> = {}): DraftMedia {
  return { type: 'image', mimeType: 'image/png', size: 1000, width: 800, height: 600, duration: null, ...o };
}
function vid(o: Partial<DraftMedia> = {}): DraftMedia {
  return { type: 'video', mimeType: 'video/mp4', size: 1000, width: 1280, height: 720, duration: 10, ...o };
}
function draft(items: (string | { content: string; media?: DraftMedia[] })[], settings: Record<string, unknown> = {}): PostDraft {
  return { settings, items: items.map((i) => (typeof i === 'string' ? { content: i, media: [] } : { content: i.content, media: i.media ?? [] })) };
}
function validate(id: PlatformIdentifier, post: PostDraft, channel: ChannelState = ok): ValidationIssue[] {
  return validatePostForPlatform(adapters[id], channel, post);
}
const at = (issues: ValidationIssue[], path: string) => issues.filter((i) => i.path === path);
const codesAt = (issues: ValidationIssue[], path: string) => at(issues, path).map((i) => i.code);

describe('validatePostForPlatform', () => {
  describe('text length in each platform counting', () => {
    it('X counts the twitter-text weighted length: 280 pass, 281 fail', () => {
      expect(validate('x', draft(['a'.repeat(280)], X_SETTINGS))).toEqual([]);
      const issues = validate('x', draft(['a'.repeat(281)], X_SETTINGS));
      expect(issues).toEqual([expect.objectContaining({ path: 'value.0.content', code: 'too_long' })]);
      expect(issues[0]!.message).toContain('281');
    });

    it('X: a URL counts 23 whatever its length', () => {
      const url = 'https://example.com/a/very/long/path/that/goes/on/and/on/and/on';
      expect(url.length).toBeGreaterThan(23);
      // 256 + 1 space + 23 = 280 (raw length is well over 280)
      const fits = `${'a'.repeat(256)} ${url}`;
      expect(fits.length).toBeGreaterThan(280);
      expect(validate('x', draft([fits], X_SETTINGS))).toEqual([]);
      expect(codesAt(validate('x', draft([`${'a'.repeat(257)} ${url}`], X_SETTINGS)), 'value.0.content')).toEqual(['too_long']);
    });

    it('X: an emoji counts 2 (140 fit, 141 do not), a family emoji sequence too', () => {
      expect(validate('x', draft(['😀'.repeat(140)], X_SETTINGS))).toEqual([]);
      expect(codesAt(validate('x', draft(['😀'.repeat(141)], X_SETTINGS)), 'value.0.content')).toEqual(['too_long']);
      const family = '👨‍👩‍👧‍👦';
      expect(validate('x', draft([family.repeat(140)], X_SETTINGS))).toEqual([]);
      expect(codesAt(validate('x', draft([family.repeat(141)], X_SETTINGS)), 'value.0.content')).toEqual(['too_long']);
    });

    it('X: HTML tags do not count (content is stored as HTML)', () => {
      expect(validate('x', draft([`<p>${'a'.repeat(140)}</p><p>${'b'.repeat(139)}</p>`], X_SETTINGS))).toEqual([]);
      expect(codesAt(validate('x', draft([`<p><strong>${'a'.repeat(281)}</strong></p>`], X_SETTINGS)), 'value.0.content')).toEqual(['too_long']);
    });

    it('Bluesky counts graphemes: 300 family emoji pass, 301 fail', () => {
      const family = '👨‍👩‍👧‍👦';
      expect((family.repeat(300)).length).toBe(3300);
      expect(validate('bluesky', draft([family.repeat(300)]))).toEqual([]);
      const issues = validate('bluesky', draft([family.repeat(301)]));
      expect(issues).toEqual([expect.objectContaining({ path: 'value.0.content', code: 'too_long' })]);
      expect(issues[0]!.message).toContain('301');
      expect(validate('bluesky', draft(['a'.repeat(300)]))).toEqual([]);
      expect(codesAt(validate('bluesky', draft(['a'.repeat(301)])), 'value.0.content')).toEqual(['too_long']);
    });

    it('characters counting is UTF-16 length (kick, 500)', () => {
      expect(validate('kick', draft(['a'.repeat(500)]))).toEqual([]);
      expect(codesAt(validate('kick', draft(['a'.repeat(501)])), 'value.0.content')).toEqual(['too_long']);
      // an emoji is two UTF-16 units
      expect(validate('kick', draft(['😀'.repeat(250)]))).toEqual([]);
      expect(codesAt(validate('kick', draft(['😀'.repeat(251)])), 'value.0.content')).toEqual(['too_long']);
    });

    it('bytes counting is UTF-8 bytes (wrapcast, 320)', () => {
      expect(codesAt(validate('wrapcast', draft(['é'.repeat(160)])), 'value.0.content')).toEqual([]);
      expect(codesAt(validate('wrapcast', draft(['é'.repeat(161)])), 'value.0.content')).toEqual(['too_long']);
    });

    it('every thread item is measured at its own path', () => {
      const issues = validate('x', draft(['ok', 'a'.repeat(281), 'fine', 'b'.repeat(300)], X_SETTINGS));
      expect(issues.map((i) => i.path)).toEqual(['value.1.content', 'value.3.content']);
    });

    it('an item with neither text nor media is flagged', () => {
      expect(codesAt(validate('bluesky', draft(['<p></p>'])), 'value.0.content')).toContain('empty');
      expect(codesAt(validate('bluesky', draft(['hi', '  '])), 'value.1.content')).toContain('empty');
      expect(validate('bluesky', draft([{ content: '', media: [img()] }]))).toEqual([]);
    });
  });

  describe('media rules', () => {
    it('count: X takes at most 4 media items', () => {
      expect(validate('x', draft([{ content: 'x', media: [img(), img(), img(), img()] }], X_SETTINGS))).toEqual([]);
      expect(codesAt(validate('x', draft([{ content: 'x', media: [img(), img(), img(), img(), img()] }], X_SETTINGS)), 'value.0.image')).toContain('too_many_media');
    });

    it('per-kind count: X takes one video', () => {
      expect(codesAt(validate('x', draft([{ content: 'x', media: [vid(), vid()] }], X_SETTINGS)), 'value.0.image')).toEqual(['too_many_videos']);
    });

    it('mixed: X refuses images with a video, Discord accepts them', () => {
      expect(codesAt(validate('x', draft([{ content: 'x', media: [img(), vid()] }], X_SETTINGS)), 'value.0.image')).toEqual(['mixed_media']);
      const discord = validate('discord', draft([{ content: 'x', media: [img(), vid()] }], { channel: '123' }));
      expect(codesAt(discord, 'value.0.image')).not.toContain('mixed_media');
    });

    it('kind: YouTube takes no images; Kick takes no media at all', () => {
      expect(codesAt(validate('youtube', draft([{ content: 'x', media: [img()] }])), 'value.0.image')).toEqual(['image_unsupported']);
      expect(codesAt(validate('kick', draft([{ content: 'x', media: [vid()] }])), 'value.0.image')).toEqual(expect.arrayContaining(['too_many_media', 'video_unsupported']));
    });

    it('mime type: each offending item is named by its index', () => {
      const issues = validate('x', draft([{ content: 'x', media: [img(), img({ mimeType: 'image/bmp' })] }], X_SETTINGS));
      expect(issues).toEqual([expect.objectContaining({ path: 'value.0.image.1', code: 'media_type' })]);
      // Bluesky takes no GIF
      expect(codesAt(validate('bluesky', draft([{ content: 'x', media: [img({ mimeType: 'image/gif' })] }])), 'value.0.image.0')).toEqual(['media_type']);
    });

    it('size: X images up to 5 MiB; larger still pictures pass (re-encoded at publish), larger GIFs do not', () => {
      expect(validate('x', draft([{ content: 'x', media: [img({ size: 5 * MiB })] }], X_SETTINGS))).toEqual([]);
      expect(validate('x', draft([{ content: 'x', media: [img({ size: 9 * MiB })] }], X_SETTINGS))).toEqual([]);
      const gif = img({ mimeType: 'image/gif', size: 5 * MiB + 1 });
      expect(codesAt(validate('x', draft([{ content: 'x', media: [gif] }], X_SETTINGS)), 'value.0.image.0')).toEqual(['media_too_large']);
    });

    it('size: videos over the limit are refused (never re-encoded)', () => {
      expect(codesAt(validate('bluesky', draft([{ content: 'x', media: [vid({ size: 100 * MiB + 1 })] }])), 'value.0.image.0')).toEqual(['media_too_large']);
    });

    it('AVIF and TIFF pass wherever the platform takes a still format (converted at publish); not where it takes only GIF or no pictures', () => {
      for (const mimeType of ['image/avif', 'image/tiff']) {
        expect(codesAt(validate('bluesky', draft([{ content: 'x', media: [img({ mimeType })] }])), 'value.0.image.0')).toEqual([]);
        expect(codesAt(validate('x', draft([{ content: 'x', media: [img({ mimeType })] }], X_SETTINGS)), 'value.0.image.0')).toEqual([]);
      }
      expect(codesAt(validate('youtube', draft([{ content: 'x', media: [img({ mimeType: 'image/avif' })] }])), 'value.0.image')).toContain('image_unsupported');
    });

    it('Instagram: pictures pulled (JPEG, or PNG/WebP as a JPEG rendition, up to 8 MB, any width); feed pictures 4:5 to 1.91:1, stories any shape', () => {
      const ig = (m: DraftMedia, postType = 'post') => codesAt(validate('instagram', draft([{ content: 'x', media: [m] }], { __type: 'instagram', post_type: postType })), 'value.0.image.0');
      expect(ig(img({ mimeType: 'image/png', width: 4000, height: 4000 }))).toEqual([]);
      expect(ig(img({ width: 200, height: 200 }))).toEqual([]);
      expect(ig(img({ width: 1080, height: 1350 }))).toEqual([]);
      expect(ig(img({ width: 1910, height: 1000 }))).toEqual([]);
      expect(ig(img({ width: 1000, height: 1300 }))).toEqual(['media_aspect_ratio']);
      expect(ig(img({ width: 2000, height: 1000 }))).toEqual(['media_aspect_ratio']);
      expect(ig(img({ width: 1080, height: 1920 }), 'story')).toEqual([]);
      // a WebP reaches it as a JPEG rendition; a GIF (animated, not renditioned) does not, nor a file over its size
      expect(ig(img({ mimeType: 'image/webp' }))).toEqual([]);
      expect(ig(img({ mimeType: 'image/gif' }))).toEqual(['media_type']);
      expect(ig(img({ size: 9 * 1024 * 1024 }))).toEqual(['media_too_large']);
      expect(validate('instagram', draft([{ content: 'x', media: [img({ mimeType: 'image/gif' })] }], { __type: 'instagram', post_type: 'post' }))[0]!.message).toContain('fetches as stored');
    });

    it('dimensions: a GIF beyond a pixel limit is refused (GIFs are not re-encoded); a JPEG passes', () => {
      const big = { width: 8000, height: 6000 };
      expect(codesAt(validate('linkedin', draft([{ content: 'x', media: [img({ mimeType: 'image/gif', ...big })] }])), 'value.0.image.0')).toEqual(['media_dimensions']);
      expect(codesAt(validate('linkedin', draft([{ content: 'x', media: [img(big)] }])), 'value.0.image.0')).toEqual([]);
      expect(codesAt(validate('linkedin', draft([{ content: 'x', media: [img({ mimeType: 'image/webp' })] }])), 'value.0.image.0')).toEqual([]);
    });

    it('duration: X videos up to 140 s; unknown duration passes', () => {
      expect(validate('x', draft([{ content: 'x', media: [vid({ duration: 140 })] }], X_SETTINGS))).toEqual([]);
      expect(validate('x', draft([{ content: 'x', media: [vid({ duration: null })] }], X_SETTINGS))).toEqual([]);
      expect(codesAt(validate('x', draft([{ content: 'x', media: [vid({ duration: 141 })] }], X_SETTINGS)), 'value.0.image.0')).toEqual(['video_too_long']);
    });

    it('media on thread items: refused where the platform comments are text only (Facebook)', () => {
      const fb = validate('facebook', draft(['first', { content: 'comment', media: [img()] }]));
      expect(codesAt(fb, 'value.1.image')).toEqual(['media_on_thread_item']);
      expect(codesAt(validate('x', draft(['first', { content: 'reply', media: [img()] }], X_SETTINGS)), 'value.1.image')).toEqual([]);
    });

    it('minItems: Instagram and YouTube need media', () => {
      expect(codesAt(validate('instagram', draft(['caption'], { post_type: 'post' })), 'value.0.image')).toEqual(['media_required']);
      expect(validate('instagram', draft([{ content: 'caption', media: [img()] }], { post_type: 'post' }))).toEqual([]);
      expect(codesAt(validate('youtube', draft(['description'])), 'value.0.image')).toEqual(['media_required']);
      expect(codesAt(validate('youtube', draft([{ content: 'description', media: [vid()] }])), 'value.0.image')).toEqual([]);
    });
  });

  describe('threads', () => {
    it('a thread on a platform without threads is flagged at value.1', () => {
      const issues = validate('devto', draft(['article', 'a reply'], { title: 'T' }));
      expect(at(issues, 'value.1')).toEqual([expect.objectContaining({ code: 'thread_unsupported' })]);
      expect(at(issues, 'value.1')[0]!.message).toContain('1 extra item');
    });

    it('a thread on X is fine', () => {
      expect(validate('x', draft(['one', 'two', 'three'], X_SETTINGS))).toEqual([]);
    });
  });

  describe('settings', () => {
    it('X needs who_can_reply_post; the path is settings.<field>', () => {
      expect(validate('x', draft(['hi'], { __type: 'x' }))).toEqual([expect.objectContaining({ path: 'settings.who_can_reply_post', code: 'invalid_settings' })]);
      expect(codesAt(validate('x', draft(['hi'], {})), 'settings.who_can_reply_post')).toEqual(['invalid_settings']);
      expect(codesAt(validate('x', draft(['hi'], { who_can_reply_post: 'nobody' })), 'settings.who_can_reply_post')).toEqual(['invalid_settings']);
    });

    it('X: a bad community and an article without its fields are each named', () => {
      expect(codesAt(validate('x', draft(['hi'], { ...X_SETTINGS, community: 'https://evil.example/x' })), 'settings.community')).toEqual(['invalid_settings']);
      const article = validate('x', draft(['hi'], { post_type: 'article' }));
      expect(article.map((i) => i.path).sort()).toEqual(['settings.article_status', 'settings.article_title', 'settings.post_type']);
    });

    it('Instagram needs post_type', () => {
      expect(codesAt(validate('instagram', draft([{ content: 'c', media: [img()] }], { __type: 'instagram' })), 'settings.post_type')).toEqual(['invalid_settings']);
    });

    it('platforms without settings accept any object', () => {
      expect(validate('bluesky', draft(['hi'], { __type: 'bluesky', anything: 1 }))).toEqual([]);
    });

    it('normaliseSettings forces __type to the channel platform', () => {
      expect(normaliseSettings({ __type: 'bluesky', who_can_reply_post: 'everyone' }, 'x')).toEqual({ __type: 'x', who_can_reply_post: 'everyone' });
      expect(normaliseSettings(undefined, 'x')).toEqual({ __type: 'x' });
    });
  });

  describe('channel state', () => {
    it('disabled, refreshNeeded and disconnected channels are flagged at integration.id', () => {
      const post = draft(['hi'], X_SETTINGS);
      expect(validate('x', post, { ...ok, disabled: true })).toEqual([expect.objectContaining({ path: 'integration.id', code: 'channel_disabled' })]);
      expect(validate('x', post, { ...ok, refreshNeeded: true })).toEqual([expect.objectContaining({ path: 'integration.id', code: 'channel_refresh_needed' })]);
      expect(validate('x', post, { ...ok, connected: false })).toEqual([expect.objectContaining({ path: 'integration.id', code: 'channel_disconnected' })]);
      expect(codesAt(validate('x', post, { name: 'c', disabled: true, refreshNeeded: true, connected: false }), 'integration.id').sort()).toEqual([
        'channel_disabled',
        'channel_disconnected',
        'channel_refresh_needed',
      ]);
    });
  });

  describe('every platform', () => {
    it('has 34 platforms', () => {
      expect(PLATFORM_IDENTIFIERS).toHaveLength(34);
    });

    it.each(PLATFORM_IDENTIFIERS)('%s: a thread is flagged at value.1 exactly when the platform has no threads', (id) => {
      const issues = validate(id, draft(['first', 'second']));
      const flagged = codesAt(issues, 'value.1').includes('thread_unsupported');
      expect(flagged).toBe(!adapters[id].metadata.thread.supported);
    });

    // Slack advertises the reference's 400000 (integration-settings) but its adapter enforces
    // Slack's real 40000, so text of exactly maxLength is still refused there.
    const STRICTER_ADAPTER = new Set<PlatformIdentifier>(['slack']);

    it.each(PLATFORM_IDENTIFIERS)('%s: text one over maxLength is flagged, maxLength itself is not', (id) => {
      const max = adapters[id].metadata.text.maxLength;
      if (!STRICTER_ADAPTER.has(id)) expect(codesAt(validate(id, draft(['a'.repeat(max)])), 'value.0.content')).toEqual([]);
      const over = codesAt(validate(id, draft(['a'.repeat(max + 1)])), 'value.0.content');
      expect(over.length).toBeGreaterThan(0);
      expect(new Set(over)).toEqual(new Set(['too_long']));
    });

    it.each(PLATFORM_IDENTIFIERS)('%s: one media item more than maxItems is flagged', (id) => {
      const m = adapters[id].metadata.media;
      const one = m.image ? img({ mimeType: m.image.mimeTypes[0]! }) : vid({ mimeType: m.video?.mimeTypes[0] ?? 'video/mp4' });
      const at = (n: number) => codesAt(validate(id, draft([{ content: 'x', media: Array.from({ length: n }, () => one) }])), 'value.0.image');
      if (m.maxItems > 0) expect(at(m.maxItems)).not.toContain('too_many_media');
      expect(at(m.maxItems + 1)).toContain('too_many_media');
    });

    it.each(PLATFORM_IDENTIFIERS)('%s: a disabled channel is flagged at integration.id', (id) => {
      expect(codesAt(validate(id, draft(['x']), { ...ok, disabled: true }), 'integration.id')).toEqual(['channel_disabled']);
    });
  });
});
