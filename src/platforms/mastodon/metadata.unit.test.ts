import { describe, expect, it } from 'vitest';
import { mastodonMetadata } from './metadata.js';

describe('mastodon metadata', () => {
  it('is the mastodon platform: OAuth on the instance, paths not URLs', () => {
    expect(mastodonMetadata.identifier).toBe('mastodon');
    expect(mastodonMetadata.authKind).toBe('instance-oauth2');
    expect(mastodonMetadata.instanceBased).toBe(true);
    expect(mastodonMetadata.oauth).toMatchObject({ authorizeUrl: '/oauth/authorize', tokenUrl: '/oauth/token', refresh: false });
    expect(mastodonMetadata.oauth?.scopes).toEqual(['read', 'write']);
  });

  it('takes no settings and has the default instance limits', () => {
    expect(mastodonMetadata.settings).toBeNull();
    expect(mastodonMetadata.credentials).toBeUndefined();
    expect(mastodonMetadata.text.maxLength).toBe(500);
    expect(mastodonMetadata.media).toMatchObject({ maxItems: 4, mixed: false, onThreadItems: true });
    expect(mastodonMetadata.thread).toEqual({ supported: true, kind: 'reply' });
    expect(mastodonMetadata.asyncProcessing).toBe(true);
  });
});
