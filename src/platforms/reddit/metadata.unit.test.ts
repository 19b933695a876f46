import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { RedditSettingsSchema, redditMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
const entry = (value: Record<string, unknown>) => ({
  value: { subreddit: '/r/typescript', title: 'Typed schedulers', type: 'self', is_flair_required: false, ...value },
});

describe('reddit metadata', () => {
  it('is the reddit OAuth platform with its tools', () => {
    expect(redditMetadata.identifier).toBe(folder);
    expect(redditMetadata.oauth).toMatchObject({ tokenUrl: 'https://www.reddit.com/api/v1/access_token', refresh: true });
    expect(redditMetadata.text.maxLength).toBe(10_000);
    expect(redditMetadata.thread).toEqual({ supported: true, kind: 'comment' });
    expect(redditMetadata.tools.map((t) => t.methodName)).toEqual(['subreddits', 'restrictions']);
  });

  it('accepts several subreddits with link, self and flair entries', () => {
    const input = {
      __type: 'reddit',
      subreddit: [
        entry({ type: 'link', url: 'https://example.com/article' }),
        entry({ subreddit: '/r/node', type: 'self', is_flair_required: true, flair: { id: 'f1', name: 'Show-off' } }),
        entry({ type: 'link', url: '(post:abc123)' }),
      ],
    };
    const parsed = RedditSettingsSchema.parse(input);
    expect(parsed.subreddit).toHaveLength(3);
    expect(parsed.subreddit[1]?.value.flair).toEqual({ id: 'f1', name: 'Show-off' });
  });

  it('needs at least one subreddit', () => {
    expect(issuePaths(RedditSettingsSchema, { subreddit: [] })).toEqual([['subreddit']]);
    expect(issuePaths(RedditSettingsSchema, {})).toEqual([['subreddit']]);
  });

  it('names the offending field of an entry', () => {
    expect(issuePaths(RedditSettingsSchema, { subreddit: [entry({ title: 'x' })] })).toEqual([['subreddit', 0, 'value', 'title']]);
    expect(issuePaths(RedditSettingsSchema, { subreddit: [entry({}), entry({ is_flair_required: undefined })] })).toEqual([
      ['subreddit', 1, 'value', 'is_flair_required'],
    ]);
  });

  it('requires a flair when the subreddit demands one', () => {
    expect(issuePaths(RedditSettingsSchema, { subreddit: [entry({ is_flair_required: true })] })).toEqual([
      ['subreddit', 0, 'value', 'flair'],
    ]);
  });

  it('requires a valid URL for a link post', () => {
    expect(issuePaths(RedditSettingsSchema, { subreddit: [entry({ type: 'link' })] })).toEqual([['subreddit', 0, 'value', 'url']]);
    expect(issuePaths(RedditSettingsSchema, { subreddit: [entry({ type: 'link', url: 'nope' })] })).toEqual([
      ['subreddit', 0, 'value', 'url'],
    ]);
    // Not a link post: the URL is not looked at.
    expect(issuePaths(RedditSettingsSchema, { subreddit: [entry({ type: 'self', url: '' })] })).toEqual([]);
  });

  it('describes the tool data', () => {
    const [subreddits, restrictions] = redditMetadata.tools;
    expect(subreddits?.dataSchema.safeParse({ word: 'typescript' }).success).toBe(true);
    expect(issuePaths(subreddits!.dataSchema, {})).toEqual([['word']]);
    expect(issuePaths(restrictions!.dataSchema, { subreddit: 3 })).toEqual([['subreddit']]);
  });
});
