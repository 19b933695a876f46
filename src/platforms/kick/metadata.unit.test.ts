import { describe, expect, it } from 'vitest';
import { KickSettingsSchema, kickMetadata } from './metadata.js';

describe('kick metadata', () => {
  it('is the kick platform: PKCE OAuth, chat text only', () => {
    expect(kickMetadata.identifier).toBe('kick');
    expect(kickMetadata.oauth).toMatchObject({ authorizeUrl: 'https://id.kick.com/oauth/authorize', pkce: true, refresh: true });
    expect(kickMetadata.text.maxLength).toBe(500);
    expect(kickMetadata.media).toEqual({ minItems: 0, maxItems: 0, mixed: false, onThreadItems: false });
    expect(kickMetadata.thread).toEqual({ supported: true, kind: 'reply' });
  });

  it('has an empty settings object: anything with __type passes and is stripped', () => {
    expect(KickSettingsSchema.parse({ __type: 'kick', extra: 1 })).toEqual({});
  });

  it('still refuses something that is not an object', () => {
    expect(KickSettingsSchema.safeParse('kick').error?.issues.map((i) => i.path)).toEqual([[]]);
  });
});
