import { describe, expect, it } from 'vitest';
import { sameContent } from './publish-calls.js';

describe('sameContent (reconciliation matching)', () => {
  it('matches the text a platform shows for the HTML we sent', () => {
    expect(sameContent('Hello world! See https://t.co/abc', '<p>Hello <strong>world</strong>! See https://example.com/a</p>')).toBe(true);
    expect(sameContent('<p>Ünïcode &amp; more</p>', 'Ünïcode & more')).toBe(true);
  });

  it('short texts must be equal, not prefixes of each other', () => {
    expect(sameContent('Launch day', 'Launch day is postponed')).toBe(false);
    expect(sameContent('crash-test 10', 'crash-test 1')).toBe(false);
    expect(sameContent('', 'x')).toBe(false);
  });

  it('long texts match on their first 80 characters (platforms rewrite the tail)', () => {
    const long = 'A long announcement that goes on and on about the release, the people who made it and everything in it, ';
    expect(sameContent(`${long}#launch`, `${long}with a tail the platform cut…`)).toBe(true);
    expect(sameContent(`X${long}`, long)).toBe(false);
  });
});
