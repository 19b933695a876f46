import { describe, expect, it } from 'vitest';
import { countText } from './text-length.js';

describe('countText', () => {
  it('counts per platform rule', () => {
    const family = '👨‍👩‍👧‍👦';
    expect(countText(family, 'characters')).toBe(11);
    expect(countText(family, 'graphemes')).toBe(1);
    expect(countText(family, 'bytes')).toBe(25);
    // X: a URL weighs 23 whatever its length, CJK characters weigh 2.
    expect(countText('see https://example.com/a/very/long/path/that/goes/on', 'twitter-weighted')).toBe(4 + 23);
    expect(countText('日本', 'twitter-weighted')).toBe(4);
    expect(countText('é', 'bytes')).toBe(2);
    // Mastodon: graphemes, a link counts 23, a remote mention counts its local part only.
    expect(countText(`${family} https://example.com/${'a'.repeat(150)}`, 'mastodon')).toBe(1 + 1 + 23);
    expect(countText('hi @alice@mastodon.social', 'mastodon')).toBe('hi @alice'.length);
    expect(countText('😀'.repeat(500), 'mastodon')).toBe(500);
  });
});
