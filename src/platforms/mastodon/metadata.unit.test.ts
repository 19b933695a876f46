import { describe, expect, it } from 'vitest';
import { MastodonSettingsSchema, mastodonMetadata } from './metadata.js';

describe('mastodon metadata', () => {
  it('is the mastodon platform: OAuth on the instance, paths not URLs', () => {
    expect(mastodonMetadata.identifier).toBe('mastodon');
    expect(mastodonMetadata.authKind).toBe('instance-oauth2');
    expect(mastodonMetadata.instanceBased).toBe(true);
    expect(mastodonMetadata.oauth).toMatchObject({ authorizeUrl: '/oauth/authorize', tokenUrl: '/oauth/token', refresh: false });
    expect(mastodonMetadata.oauth?.scopes).toEqual(['read', 'write']);
  });

  it('settings: visibility (default public) and a content warning of at most 500 characters', () => {
    expect(MastodonSettingsSchema.parse({})).toEqual({ visibility: 'public' });
    expect(MastodonSettingsSchema.parse({ visibility: 'unlisted', spoiler_text: 'CW' })).toEqual({ visibility: 'unlisted', spoiler_text: 'CW' });
    expect(MastodonSettingsSchema.safeParse({ visibility: 'friends' }).error?.issues.map((i) => i.path.join('.'))).toEqual(['visibility']);
    expect(MastodonSettingsSchema.safeParse({ spoiler_text: 'w'.repeat(501) }).error?.issues.map((i) => i.path.join('.'))).toEqual(['spoiler_text']);
  });

  it('has the default instance limits', () => {
    expect(mastodonMetadata.settings).toBe(MastodonSettingsSchema);
    expect(mastodonMetadata.credentials).toBeUndefined();
    expect(mastodonMetadata.text.maxLength).toBe(500);
    expect(mastodonMetadata.media).toMatchObject({ maxItems: 4, mixed: false, onThreadItems: true });
    expect(mastodonMetadata.thread).toEqual({ supported: true, kind: 'reply' });
    expect(mastodonMetadata.asyncProcessing).toBe(true);
  });
});
