import { describe, expect, it } from 'vitest';
import { FacebookSettingsSchema, facebookMetadata } from './metadata.js';

const paths = (r: { error?: { issues: { path: PropertyKey[] }[] } }) => r.error?.issues.map((i) => i.path);

describe('facebook metadata', () => {
  it('is the facebook platform: text-only comments, async stories, a rule sentence', () => {
    expect(facebookMetadata.identifier).toBe('facebook');
    expect(facebookMetadata.text.maxLength).toBe(63_206);
    expect(facebookMetadata.thread).toEqual({ supported: true, kind: 'comment' });
    expect(facebookMetadata.media.onThreadItems).toBe(false);
    expect(facebookMetadata.asyncProcessing).toBe(true);
    expect(facebookMetadata.oauth?.scopes).toContain('pages_manage_posts');
    expect(facebookMetadata.rules).toMatch(/story/);
    expect(facebookMetadata.analytics).toEqual({ channel: true, post: true });
  });

  it('accepts an empty settings object and a full one', () => {
    expect(FacebookSettingsSchema.safeParse({ __type: 'facebook' }).success).toBe(true);
    const r = FacebookSettingsSchema.safeParse({
      __type: 'facebook',
      url: 'https://example.com/launch',
      post_type: 'story',
      text_format_preset_id: '106018623298955',
    });
    expect(r.success).toBe(true);
    expect(r.data).toEqual({ url: 'https://example.com/launch', post_type: 'story', text_format_preset_id: '106018623298955' });
  });

  it('rejects a bad link and an unknown post type', () => {
    expect(paths(FacebookSettingsSchema.safeParse({ url: 'example' }))).toEqual([['url']]);
    expect(paths(FacebookSettingsSchema.safeParse({ post_type: 'carousel' }))).toEqual([['post_type']]);
    expect(FacebookSettingsSchema.safeParse({ post_type: 'reel' }).success).toBe(true);
  });
});
