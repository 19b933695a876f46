import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countGraphemes, countText } from './text-length.js';

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

  it('counts grapheme clusters as Intl.Segmenter does (which is too slow on long texts to use)', () => {
    const intl = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const reference = (text: string) => [...intl.segment(text)].length;
    for (const s of ['e\u0301', '👨‍👩‍👧‍👦x', '🇫🇷🇩🇪', '\r\n\n', 'ก่า', '한국어', '\u0600a', 'a\u200db', '🏳️‍🌈', '❤️', 'नमस्ते', 'क्षि', '\ud83d\ude00\ud83c\udffb']) {
      expect(countGraphemes(s), JSON.stringify(s)).toBe(reference(s));
    }
    // Texts built from pieces that combine: marks, joiners, variation selectors, regional indicators, CR/LF.
    const piece = fc.constantFrom('a', 'é', 'e\u0301', '\u0308', '\u200d', '\ufe0f', '👍', '🏽', '🇫', '🇷', '\r', '\n', '한', '\u1161', 'क', '\u094d', 'ष', '\u0600', ' ');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        expect(countGraphemes(text)).toBe(reference(text));
      }),
      { numRuns: 500, seed: 12 },
    );
    // long texts are counted too (100,000 characters in a few milliseconds; Intl.Segmenter took seconds)
    expect(countGraphemes('a'.repeat(100_000) + '👨‍👩‍👧‍👦'.repeat(1000))).toBe(101_000);
  });
});
