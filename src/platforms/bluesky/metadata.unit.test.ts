import { describe, expect, it } from 'vitest';
import { BlueskyCredentialsSchema, blueskyMetadata } from './metadata.js';

describe('bluesky metadata', () => {
  it('credentials: service defaults to bsky.social; missing fields are named', () => {
    expect(BlueskyCredentialsSchema.parse({ identifier: 'me.bsky.social', password: 'app-pass' }).service).toBe('https://bsky.social');
    const r = BlueskyCredentialsSchema.safeParse({ service: 'ftp://x', identifier: '' });
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['service', 'identifier', 'password']);
  });

  it('counts graphemes, takes no settings, 4 images of ≤ 1 MB or 1 video', () => {
    expect(blueskyMetadata.text).toEqual({ maxLength: 300, counting: 'graphemes' });
    expect(blueskyMetadata.settings).toBeNull();
    expect(blueskyMetadata.media.image?.maxBytes).toBe(1_000_000);
    expect(blueskyMetadata.media.mixed).toBe(false);
  });
});
