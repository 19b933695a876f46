import { describe, expect, it } from 'vitest';
import { XSettingsSchema, xMetadata } from './metadata.js';

const paths = (r: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) => r.error?.issues.map((i) => i.path.join('.'));

describe('x metadata', () => {
  it('accepts the reference payloads', () => {
    expect(XSettingsSchema.safeParse({ __type: 'x', who_can_reply_post: 'everyone' }).success).toBe(true);
    expect(XSettingsSchema.safeParse({ who_can_reply_post: 'following', community: 'https://x.com/i/communities/123', made_with_ai: true }).success).toBe(true);
    expect(XSettingsSchema.safeParse({ post_type: 'article', article_title: 'Hello', article_status: 'draft', article_cover: { id: 'm1', path: 'https://x/1.png' } }).success).toBe(true);
  });

  it('names the offending field', () => {
    expect(paths(XSettingsSchema.safeParse({}))).toEqual(['who_can_reply_post']);
    expect(paths(XSettingsSchema.safeParse({ who_can_reply_post: 'nobody' }))).toEqual(['who_can_reply_post']);
    expect(paths(XSettingsSchema.safeParse({ who_can_reply_post: 'everyone', community: 'https://evil.com/1' }))).toEqual(['community']);
    expect(paths(XSettingsSchema.safeParse({ post_type: 'article' }))).toEqual(['article_title', 'article_status']);
  });

  it('counts X weighted length and allows 4 images or 1 video', () => {
    expect(xMetadata.text).toEqual({ maxLength: 280, counting: 'twitter-weighted' });
    expect({ max: xMetadata.media.maxItems, mixed: xMetadata.media.mixed, videos: xMetadata.media.video?.maxCount }).toEqual({ max: 4, mixed: false, videos: 1 });
  });
});
