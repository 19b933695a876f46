import { describe, expect, it } from 'vitest';
// The server's own validation, to prove the composer counts the same.
import { validatePostForPlatform } from '../../../../src/modules/posts/post-validation.js';
import { htmlToText } from '../../../../src/platforms/common/html.js';
import { countText } from '../../../../src/platforms/text-length.js';
import { countFor, htmlToPlain, lengthOnPlatform, platformText, textToHtml, withShortLinks, type Counting } from './counting.js';

const family = '👨‍👩‍👧‍👦';
const TRICKY = [
  '',
  'plain ascii',
  family,
  `${family}${family} family x2`,
  'e\u0301 combining accent',
  '🇫🇷🇩🇪 flags',
  '🏳️‍🌈 ❤️ 👍🏽',
  '日本語のテキスト、漢字とかな',
  '한국어 텍스트 \u1100\u1161',
  'नमस्ते क्षि',
  'see https://example.com/a/very/long/path/that/goes/on?x=1&y=2 now',
  'two links http://a.example and https://b.example/path',
  'hi @alice@mastodon.social and @bob',
  'email bob@example.com is not a mention',
  '\ud83d lone high surrogate',
  'lone low \udc00 surrogate',
  'line one\nline two\n\nafter a blank line',
  '\r\nwindows\r\nlines',
  '#hashtag $cashtag @mention',
  'a'.repeat(301),
  '😀'.repeat(150) + ' https://example.com/' + 'x'.repeat(200),
  'mixed 日本 and emoji 🎉 and url https://t.co/abc',
];
const COUNTINGS: Counting[] = ['characters', 'graphemes', 'twitter-weighted', 'bytes', 'mastodon'];

describe('length counters: the same counting as the server’s validation', () => {
  it('agrees with the server’s countText on tricky strings, for every counting', () => {
    for (const text of TRICKY) {
      for (const counting of COUNTINGS) {
        expect(countFor(text, counting), `${counting} of ${JSON.stringify(text)}`).toBe(countText(text, counting));
      }
    }
  });

  it('counts each platform’s way: emoji, CJK, URLs, mentions', () => {
    expect(countFor(family, 'characters')).toBe(11);
    expect(countFor(family, 'graphemes')).toBe(1);
    expect(countFor(family, 'bytes')).toBe(25);
    expect(countFor('é', 'bytes')).toBe(2);
    expect(countFor('日本', 'bytes')).toBe(6);
    expect(countFor('日本', 'twitter-weighted')).toBe(4);
    expect(countFor('😀', 'twitter-weighted')).toBe(2);
    expect(countFor('see https://example.com/a/very/long/path', 'twitter-weighted')).toBe(4 + 23);
    expect(countFor(`${family} https://example.com/${'a'.repeat(150)}`, 'mastodon')).toBe(1 + 1 + 23);
    expect(countFor('hi @alice@mastodon.social', 'mastodon')).toBe('hi @alice'.length);
    expect(countFor('🇫🇷🇩🇪', 'graphemes')).toBe(2);
    expect(countFor('🇫🇷🇩🇪', 'characters')).toBe(8);
  });

  it('counts what the platform receives: the typed text as the API reads the HTML it is sent in', () => {
    for (const text of TRICKY) {
      // what the composer sends, read back the way the server reads it before counting
      expect(platformText(text)).toBe(htmlToText(textToHtml(text)));
      for (const counting of COUNTINGS) expect(lengthOnPlatform(text, counting)).toBe(countText(htmlToText(textToHtml(text)), counting));
    }
    // characters HTML gives a meaning to arrive as typed
    expect(platformText('a < b && c > d <b>not bold</b> &amp;')).toBe('a < b && c > d <b>not bold</b> &amp;');
    // blank lines survive; surrounding space goes, as the server trims
    expect(platformText('one\n\ntwo\n')).toBe('one\n\ntwo');
    expect(textToHtml('one\n\ntwo')).toBe('<p>one</p><p></p><p>two</p>');
    expect(textToHtml('  \n ')).toBe('');
    // stored content reads back to the text that was typed
    expect(htmlToPlain(textToHtml('a & b\n\n<c>'))).toBe('a & b\n\n<c>');
  });

  it('the server refuses exactly when the counter goes over (Bluesky: 300 graphemes)', async () => {
    const { blueskyMetadata } = await import('../../../../src/platforms/bluesky/metadata.js');
    const adapter = { metadata: blueskyMetadata, validate: () => [] } as unknown as Parameters<typeof validatePostForPlatform>[0];
    const channel = { name: 'Acme', disabled: false, refreshNeeded: false, connected: true };
    const issues = (text: string) => validatePostForPlatform(adapter, channel, { settings: {}, items: [{ content: textToHtml(text), media: [] }] }).filter((i) => i.code === 'too_long');
    const at = `${family.repeat(290)} 123456789`; // 300 graphemes, 3,200 UTF-16 units
    expect(lengthOnPlatform(at, 'graphemes')).toBe(300);
    expect(issues(at)).toEqual([]);
    expect(lengthOnPlatform(`${at}0`, 'graphemes')).toBe(301);
    expect(issues(`${at}0`).map((i) => i.message)).toEqual(['Bluesky allows 300 characters (graphemes); this text has 301']);
  });

  it('with short links on, each URL counts as a short link; X and Mastodon already count a URL as 23', () => {
    const text = `Read https://example.com/${'a'.repeat(100)}?x=1 and http://b.example/p too`;
    expect(withShortLinks(text, 'characters', 25)).toBe(`Read ${'x'.repeat(25)} and ${'x'.repeat(25)} too`);
    expect(lengthOnPlatform(text, 'characters', 25)).toBe('Read  and  too'.length + 50);
    expect(lengthOnPlatform(text, 'graphemes', 25)).toBe('Read  and  too'.length + 50);
    expect(lengthOnPlatform(text, 'bytes', 25)).toBe('Read  and  too'.length + 50);
    // without short links the URLs count in full
    expect(lengthOnPlatform(text, 'characters')).toBe(text.length);
    // already a fixed 23 per URL on X and Mastodon: the same with or without
    expect(lengthOnPlatform(text, 'twitter-weighted', 25)).toBe(lengthOnPlatform(text, 'twitter-weighted'));
    expect(lengthOnPlatform(text, 'mastodon', 25)).toBe(lengthOnPlatform(text, 'mastodon'));
    expect(lengthOnPlatform(text, 'mastodon', 25)).toBe('Read  and  too'.length + 46);
    // as the server finds URLs: a sentence's full stop or a closing bracket is not part of the link
    expect(withShortLinks('See https://a.example/x. Or (https://b.example/y)!', 'characters', 5)).toBe('See xxxxx. Or (xxxxx)!');
  });
});
