import { describe, expect, it } from 'vitest';
import { findUrls, replaceUrls, withSampleLinks } from './short-links.js';

describe('finding and replacing URLs in a post', () => {
  it('finds each http(s) URL once, without the sentence punctuation after it', () => {
    expect(findUrls('Read https://example.com/a?x=1&y=2. Then (see http://example.org/b), and https://example.com/a?x=1&y=2!')).toEqual([
      'https://example.com/a?x=1&y=2',
      'http://example.org/b',
    ]);
  });

  it('keeps a closing bracket the URL opened, and skips what is not a URL', () => {
    expect(findUrls('Wiki: https://en.wikipedia.org/wiki/Foo_(bar). Not: example.com, ftp://x.y, https://')).toEqual(['https://en.wikipedia.org/wiki/Foo_(bar)']);
  });

  it('replaces URLs in text and in href, matching entity-encoded forms, leaving other URLs alone', () => {
    const html = '<p>Go <a href="https://example.com/a?x=1&amp;y=2">https://example.com/a?x=1&amp;y=2</a>. Also https://example.com/a/longer and https://other.example/.</p>';
    const links = new Map([
      ['https://example.com/a?x=1&y=2', 'https://s.test/s/abc'],
      ['https://other.example/', 'https://s.test/s/def'],
    ]);
    expect(replaceUrls(html, links)).toBe('<p>Go <a href="https://s.test/s/abc">https://s.test/s/abc</a>. Also https://example.com/a/longer and https://s.test/s/def.</p>');
  });

  it('estimates the text with every URL as long as a short link', () => {
    expect(withSampleLinks('A https://example.com/very/long/path?q=1, B', 'https://t.io/xxxxxxx')).toBe('A https://t.io/xxxxxxx, B');
  });
});
