import { describe, expect, it } from 'vitest';
import { MeweSettingsSchema, meweMetadata } from './metadata.js';

const issues = (r: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.error?.issues.map((i) => ({ path: i.path, message: i.message }));

describe('mewe metadata', () => {
  it('is the mewe platform: redirect login, photos only, no comments', () => {
    expect(meweMetadata.identifier).toBe('mewe');
    expect(meweMetadata.authKind).toBe('oauth2');
    expect(meweMetadata.oauth).toMatchObject({ authorizeUrl: 'https://mewe.com/login', tokenUrl: 'https://mewe.com/api/dev/token' });
    expect(meweMetadata.media.video).toBeUndefined();
    expect(meweMetadata.thread.supported).toBe(false);
    expect(meweMetadata.tools.map((t) => t.methodName)).toEqual(['groups']);
  });

  it('accepts a timeline post and a group post', () => {
    expect(MeweSettingsSchema.safeParse({ __type: 'mewe', postType: 'timeline' }).success).toBe(true);
    expect(MeweSettingsSchema.parse({ __type: 'mewe', postType: 'group', group: '5f1e2d3c' })).toEqual({
      postType: 'group',
      group: '5f1e2d3c',
    });
  });

  it('rejects a missing postType, and a group post without a group', () => {
    expect(issues(MeweSettingsSchema.safeParse({}))).toEqual([{ path: ['postType'], message: 'Required' }]);
    expect(issues(MeweSettingsSchema.safeParse({ postType: 'page' }))?.[0]?.path).toEqual(['postType']);
    expect(issues(MeweSettingsSchema.safeParse({ postType: 'group' }))).toEqual([{ path: ['group'], message: 'Required' }]);
    expect(issues(MeweSettingsSchema.safeParse({ postType: 'group', group: '' }))).toEqual([{ path: ['group'], message: 'Required' }]);
  });
});

describe('mewe metadata: what is verified and what is assumed', () => {
  it('the login answers loginRequestToken instead of code', () => {
    expect(meweMetadata.oauth?.callbackCodeParam).toBe('loginRequestToken');
  });

  it('the rule sentence says nothing is verified against public documentation and names the assumptions', () => {
    expect(meweMetadata.rules).toMatch(/nothing here is verified against public documentation/);
    expect(meweMetadata.rules).toMatch(/Assumed: the host https:\/\/mewe\.com/);
    expect(meweMetadata.rules).toMatch(/Enhance Your Calm/);
  });
});
