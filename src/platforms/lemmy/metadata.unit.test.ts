import { describe, expect, it } from 'vitest';
import { LemmyCredentialsSchema, LemmySettingsSchema, lemmyMetadata } from './metadata.js';

const issues = (r: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.error?.issues.map((i) => ({ path: i.path, message: i.message }));

const community = { value: { subreddit: 'selfhosted', id: '1234', title: 'Tidings 1.0 is out', url: 'https://example.com/tidings' } };

describe('lemmy metadata', () => {
  it('is the lemmy platform: credentials on an instance, comments, subreddits tool', () => {
    expect(lemmyMetadata.identifier).toBe('lemmy');
    expect(lemmyMetadata.authKind).toBe('credentials');
    expect(lemmyMetadata.instanceBased).toBe(true);
    expect(lemmyMetadata.thread).toEqual({ supported: true, kind: 'comment' });
    expect(lemmyMetadata.media.image?.mimeTypes).toEqual(['image/png', 'image/jpeg', 'image/gif']);
    expect(lemmyMetadata.analytics).toEqual({ channel: false, post: true });
    const tool = lemmyMetadata.tools.find((t) => t.methodName === 'subreddits');
    expect(tool?.dataSchema.safeParse({ word: 'selfhosted' }).success).toBe(true);
    expect(tool?.dataSchema.safeParse({}).error?.issues[0]?.path).toEqual(['word']);
  });

  it('accepts one or more communities, url optional', () => {
    expect(LemmySettingsSchema.safeParse({ __type: 'lemmy', subreddit: [community] }).success).toBe(true);
    const { url: _u, ...noUrl } = community.value;
    expect(LemmySettingsSchema.safeParse({ subreddit: [community, { value: noUrl }] }).success).toBe(true);
    expect(LemmySettingsSchema.safeParse({ subreddit: [community], nsfw: true }).success).toBe(true);
    expect(issues(LemmySettingsSchema.safeParse({ subreddit: [community], nsfw: 'yes' }))?.[0]?.path).toEqual(['nsfw']);
  });

  it('rejects an empty list, short titles, missing ids and bad URLs, naming the field', () => {
    expect(issues(LemmySettingsSchema.safeParse({ subreddit: [] }))).toEqual([
      { path: ['subreddit'], message: 'Pick at least one community' },
    ]);
    expect(issues(LemmySettingsSchema.safeParse({}))).toEqual([{ path: ['subreddit'], message: 'Required' }]);
    expect(issues(LemmySettingsSchema.safeParse({ subreddit: [{ value: { ...community.value, title: 'x' } }] }))).toEqual([
      { path: ['subreddit', 0, 'value', 'title'], message: 'Must be at least 2 characters' },
    ]);
    const { id: _id, ...noId } = community.value;
    expect(issues(LemmySettingsSchema.safeParse({ subreddit: [community, { value: noId }] }))?.[0]?.path).toEqual([
      'subreddit',
      1,
      'value',
      'id',
    ]);
    expect(
      issues(LemmySettingsSchema.safeParse({ subreddit: [{ value: { ...community.value, url: 'nope' } }] }))?.[0]?.path,
    ).toEqual(['subreddit', 0, 'value', 'url']);
  });

  it('credentials: instance URL, username and password', () => {
    expect(
      LemmyCredentialsSchema.safeParse({ instanceUrl: 'https://lemmy.world', username: 'alice', password: 's3cret pass' }).success,
    ).toBe(true);
    expect(issues(LemmyCredentialsSchema.safeParse({ username: 'alice', password: 'x' }))).toEqual([
      { path: ['instanceUrl'], message: 'Required' },
    ]);
    expect(issues(LemmyCredentialsSchema.safeParse({ instanceUrl: 'ftp://lemmy.world', username: 'alice', password: 'x' }))).toEqual([
      { path: ['instanceUrl'], message: 'Must be an http(s) URL' },
    ]);
    expect(LemmyCredentialsSchema.safeParse({ instanceUrl: 'https://lemmy.world', username: 'alice', password: 'x', totpToken: '123456' }).success).toBe(true);
    expect(issues(LemmyCredentialsSchema.safeParse({ instanceUrl: 'https://lemmy.world', username: 'alice', password: 'x', totpToken: '12345' }))).toEqual([
      { path: ['totpToken'], message: 'Must be the 6-digit code of your authenticator app' },
    ]);
    expect(issues(LemmyCredentialsSchema.safeParse({ instanceUrl: 'https://lemmy.world', username: ' ', password: '' }))).toEqual([
      { path: ['username'], message: 'Required' },
      { path: ['password'], message: 'Required' },
    ]);
  });
});
