import { describe, expect, it } from 'vitest';
import { InstagramStandaloneSettingsSchema, instagramStandaloneMetadata } from './metadata.js';

describe('instagram-standalone metadata', () => {
  it('is the instagram-standalone platform: Instagram Login, refreshable token, no tools', () => {
    expect(instagramStandaloneMetadata.identifier).toBe('instagram-standalone');
    expect(instagramStandaloneMetadata.oauth).toMatchObject({
      authorizeUrl: 'https://www.instagram.com/oauth/authorize',
      tokenUrl: 'https://api.instagram.com/oauth/access_token',
      refresh: true,
    });
    expect(instagramStandaloneMetadata.oauth?.scopes).toContain('instagram_business_content_publish');
    expect(instagramStandaloneMetadata.media.minItems).toBe(1);
    expect(instagramStandaloneMetadata.tools).toEqual([]);
    expect(instagramStandaloneMetadata.rules).not.toBe('');
  });

  it('shares the instagram settings shape', () => {
    expect(
      InstagramStandaloneSettingsSchema.safeParse({ __type: 'instagram-standalone', post_type: 'post', is_trial_reel: false }).success,
    ).toBe(true);
    expect(InstagramStandaloneSettingsSchema.safeParse({ post_type: 'carousel' }).error?.issues.map((i) => i.path)).toEqual([
      ['post_type'],
    ]);
  });
});
