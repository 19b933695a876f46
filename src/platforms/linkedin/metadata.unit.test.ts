import { describe, expect, it } from 'vitest';
import { LinkedinSettingsSchema } from '../common/linkedin-settings.js';
import { linkedinMetadata } from './metadata.js';

describe('linkedin metadata', () => {
  it('is the linkedin platform: 3,000 characters, 20 pictures or 1 video, text-only comments, no analytics', () => {
    expect(linkedinMetadata.identifier).toBe('linkedin');
    expect(linkedinMetadata.text).toEqual({ maxLength: 3000, counting: 'characters' });
    expect(linkedinMetadata.media).toMatchObject({ maxItems: 20, mixed: false, onThreadItems: false });
    expect(linkedinMetadata.media.video).toMatchObject({ maxCount: 1, maxDurationSeconds: 1800 });
    expect(linkedinMetadata.thread).toEqual({ supported: true, kind: 'comment' });
    expect(linkedinMetadata.oauth?.scopes).toContain('w_member_social');
    expect(linkedinMetadata.analytics).toEqual({ channel: false, post: false });
    expect(linkedinMetadata.rules).toMatch(/carousel/);
  });

  it('accepts the carousel settings, or none', () => {
    expect(LinkedinSettingsSchema.safeParse({ __type: 'linkedin' }).success).toBe(true);
    expect(
      LinkedinSettingsSchema.parse({ __type: 'linkedin', post_as_images_carousel: true, carousel_name: 'Q3 results' }),
    ).toEqual({ post_as_images_carousel: true, carousel_name: 'Q3 results' });
  });

  it('rejects wrong types, naming the field', () => {
    expect(LinkedinSettingsSchema.safeParse({ post_as_images_carousel: 'yes' }).error?.issues.map((i) => i.path)).toEqual([
      ['post_as_images_carousel'],
    ]);
    expect(LinkedinSettingsSchema.safeParse({ carousel_name: 12 }).error?.issues.map((i) => i.path)).toEqual([['carousel_name']]);
  });
});
