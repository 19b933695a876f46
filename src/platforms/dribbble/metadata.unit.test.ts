import { describe, expect, it } from 'vitest';
import { DribbbleSettingsSchema, dribbbleMetadata } from './metadata.js';

const issues = (r: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.error?.issues.map((i) => ({ path: i.path, message: i.message }));

describe('dribbble metadata', () => {
  it('is the dribbble platform: exactly one picture, no refresh token, stub analytics', () => {
    expect(dribbbleMetadata.identifier).toBe('dribbble');
    expect(dribbbleMetadata.oauth).toMatchObject({ scopes: ['public', 'upload'], refresh: false, pkce: false });
    expect(dribbbleMetadata.media).toMatchObject({ minItems: 1, maxItems: 1 });
    expect(dribbbleMetadata.media.video).toBeUndefined();
    expect(dribbbleMetadata.analytics).toEqual({ channel: false, post: false });
    expect(dribbbleMetadata.tools.map((t) => t.methodName)).toEqual(['teams']);
  });

  it('accepts a title with an optional team URL', () => {
    expect(DribbbleSettingsSchema.safeParse({ __type: 'dribbble', title: 'Dashboard concept' }).success).toBe(true);
    expect(
      DribbbleSettingsSchema.safeParse({ title: 'Dashboard concept', team: 'https://dribbble.com/acme' }).success,
    ).toBe(true);
  });

  it('rejects a missing title and a team that is not a URL', () => {
    expect(issues(DribbbleSettingsSchema.safeParse({}))).toEqual([{ path: ['title'], message: 'Required' }]);
    expect(issues(DribbbleSettingsSchema.safeParse({ title: 'Shot', team: 'acme' }))?.map((i) => i.path)).toEqual([['team']]);
  });
});

describe('dribbble settings: team and tags', () => {
  it('takes an empty team (a personal shot, as Postiz sends it), a team id or URL, and at most 12 tags', () => {
    expect(DribbbleSettingsSchema.safeParse({ title: 'Shot', team: '' }).success).toBe(true);
    expect(DribbbleSettingsSchema.safeParse({ title: 'Shot', team: '1234' }).success).toBe(true);
    expect(DribbbleSettingsSchema.safeParse({ title: 'Shot', tags: ['ui', { value: 'ux', label: 'ux' }] }).success).toBe(true);
    const many = Array.from({ length: 13 }, (_, i) => `t${i}`);
    expect(issues(DribbbleSettingsSchema.safeParse({ title: 'Shot', tags: many }))).toEqual([{ path: ['tags'], message: 'At most 12 tags' }]);
    expect(dribbbleMetadata.rules).toContain('400×300');
  });
});
