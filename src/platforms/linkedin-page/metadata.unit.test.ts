import { describe, expect, it } from 'vitest';
import { LinkedinPageSettingsSchema, linkedinPageMetadata } from './metadata.js';

describe('linkedin-page metadata', () => {
  it('is the linkedin-page platform: organization scopes and page analytics', () => {
    expect(linkedinPageMetadata.identifier).toBe('linkedin-page');
    expect(linkedinPageMetadata.oauth?.scopes).toEqual(
      expect.arrayContaining(['w_organization_social', 'r_organization_social', 'rw_organization_admin']),
    );
    expect(linkedinPageMetadata.analytics).toEqual({ channel: true, post: true });
    expect(linkedinPageMetadata.media.onThreadItems).toBe(false);
    expect(linkedinPageMetadata.rules).not.toBe('');
  });

  it('shares the linkedin settings shape', () => {
    expect(LinkedinPageSettingsSchema.safeParse({ __type: 'linkedin-page', post_as_images_carousel: false }).success).toBe(true);
    expect(LinkedinPageSettingsSchema.safeParse({ carousel_name: false }).error?.issues.map((i) => i.path)).toEqual([
      ['carousel_name'],
    ]);
  });
});
