import { describe, expect, it } from 'vitest';
import { tokenize } from './feedText.js';
import { trySandboxPlatforms, type SandboxFeedItem } from './queries.js';
import { threadsOf } from './SandboxFeedPage.js';

const item = (id: string, replyTo?: string): SandboxFeedItem => ({ id, text: id, media: [], ...(replyTo ? { replyTo } : {}) });

describe('sandbox feed: plain text as the platform links it', () => {
  it('turns addresses, @mentions and #hashtags into links to the platform and keeps the rest as text', () => {
    const tokens = tokenize('Bread at 7 #sourdough with @baker — see https://bakery.example/menu.', 'x');
    expect(tokens).toEqual([
      { kind: 'text', text: 'Bread at 7 ' },
      { kind: 'tag', text: '#sourdough', href: 'https://x.com/hashtag/sourdough' },
      { kind: 'text', text: ' with ' },
      { kind: 'mention', text: '@baker', href: 'https://x.com/baker' },
      { kind: 'text', text: ' — see ' },
      { kind: 'link', text: 'https://bakery.example/menu', href: 'https://bakery.example/menu' },
      { kind: 'text', text: '.' },
    ]);
  });

  it('leaves an e-mail address and an HTML entity-like "&#1" alone; Bluesky handles keep their dots', () => {
    expect(tokenize('write to sam@bakery.example', 'bluesky').map((t) => t.kind)).toEqual(['text']);
    expect(tokenize('hi @sam.bsky.social', 'bluesky')).toContainEqual({ kind: 'mention', text: '@sam.bsky.social', href: 'https://bsky.app/profile/sam.bsky.social' });
    expect(tokenize('&#1', 'x').map((t) => t.kind)).toEqual(['text']);
  });
});

describe('sandbox feed: threads', () => {
  it('nests each reply under its parent and keeps the platform order; a reply to an unknown item stands alone', () => {
    const roots = threadsOf([item('a'), item('b'), item('a1', 'a'), item('a2', 'a1'), item('z', 'gone')]);
    expect(roots.map((n) => n.item.id)).toEqual(['a', 'b', 'z']);
    expect(roots[0]!.replies.map((n) => n.item.id)).toEqual(['a1']);
    expect(roots[0]!.replies[0]!.replies.map((n) => n.item.id)).toEqual(['a2']);
  });
});

describe('"Try it with sandbox channels" picks', () => {
  it('x, Bluesky and Telegram where offered, else fills up with the first platforms offered, never more than three', () => {
    expect(trySandboxPlatforms(['devto', 'telegram', 'x', 'bluesky', 'mastodon'])).toEqual(['x', 'bluesky', 'telegram']);
    expect(trySandboxPlatforms(['devto', 'telegram', 'x', 'mastodon'])).toEqual(['x', 'telegram', 'devto']);
    expect(trySandboxPlatforms(['medium'])).toEqual(['medium']);
    expect(trySandboxPlatforms([])).toEqual([]);
  });
});
