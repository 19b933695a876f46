import { describe, expect, it } from 'vitest';
import { InstagramSettingsSchema } from '../common/instagram-settings.js';
import { instagramMetadata } from './metadata.js';

const issues = (r: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.error?.issues.map((i) => ({ path: i.path, message: i.message }));

describe('instagram metadata', () => {
  it('is the instagram platform: at least one item, up to 10, JPEG pictures, text-only comments', () => {
    expect(instagramMetadata.identifier).toBe('instagram');
    expect(instagramMetadata.displayName).toBe('Instagram (Facebook Business)');
    expect(instagramMetadata.media).toMatchObject({ minItems: 1, maxItems: 10, onThreadItems: false });
    // PNG and WebP pictures may be attached: Instagram pulls their JPEG rendition
    expect(instagramMetadata.media.image).toMatchObject({ mimeTypes: ['image/jpeg', 'image/png', 'image/webp'], platformTypes: ['image/jpeg'], pulled: true });
    expect(instagramMetadata.text.maxLength).toBe(2200);
    expect(instagramMetadata.thread).toEqual({ supported: true, kind: 'comment' });
    expect(instagramMetadata.asyncProcessing).toBe(true);
    expect(instagramMetadata.oauth?.refresh).toBe(false);
    expect(instagramMetadata.rules).toMatch(/at least one/);
  });

  it('accepts a reel with collaborators and audio', () => {
    const r = InstagramSettingsSchema.safeParse({
      __type: 'instagram',
      post_type: 'post',
      is_trial_reel: true,
      graduation_strategy: 'SS_PERFORMANCE',
      collaborators: [{ label: 'friend.account' }],
      audio: { id: '1234567890', title: 'Song', artist: 'Band', audio_volume: 80, video_volume: 20 },
    });
    expect(r.success).toBe(true);
    expect(InstagramSettingsSchema.safeParse({ post_type: 'story' }).success).toBe(true);
  });

  it('rejects a missing post_type, unknown strategy, out-of-range volume and audio without id', () => {
    expect(issues(InstagramSettingsSchema.safeParse({ __type: 'instagram' }))).toEqual([{ path: ['post_type'], message: 'Required' }]);
    expect(issues(InstagramSettingsSchema.safeParse({ post_type: 'reel' }))?.[0]?.path).toEqual(['post_type']);
    expect(issues(InstagramSettingsSchema.safeParse({ post_type: 'post', graduation_strategy: 'AUTO' }))?.[0]?.path).toEqual([
      'graduation_strategy',
    ]);
    expect(issues(InstagramSettingsSchema.safeParse({ post_type: 'post', audio: { id: 'a', audio_volume: 101 } }))?.[0]?.path).toEqual([
      'audio',
      'audio_volume',
    ]);
    expect(issues(InstagramSettingsSchema.safeParse({ post_type: 'post', audio: { title: 'Song' } }))).toEqual([
      { path: ['audio', 'id'], message: 'Required' },
    ]);
    expect(issues(InstagramSettingsSchema.safeParse({ post_type: 'post', collaborators: [{ label: 3 }] }))?.[0]?.path).toEqual([
      'collaborators',
      0,
      'label',
    ]);
  });

  it('audioSearch takes { q, type }', () => {
    expect(instagramMetadata.tools.map((t) => t.methodName)).toEqual(['accounts', 'audioSearch']);
    const tool = instagramMetadata.tools.find((t) => t.methodName === 'audioSearch');
    expect(tool?.dataSchema.safeParse({ q: 'summer', type: 'music' }).success).toBe(true);
    expect(tool?.dataSchema.safeParse({ type: 'music' }).error?.issues[0]?.path).toEqual(['q']);
  });
});
