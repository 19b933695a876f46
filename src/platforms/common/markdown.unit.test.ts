import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from './markdown.js';

describe('htmlToMarkdown', () => {
  it('converts the editor’s HTML into CommonMark', () => {
    const html =
      '<h2>Release notes</h2><p>Hello <strong>bold</strong> and <em>italic</em>, <s>old</s> <u>under</u>.</p>' +
      '<ul><li>one</li><li>two</li></ul><ol><li>first</li></ol><p><a href="https://ex.com/a">a link</a> <code>x()</code></p>' +
      '<pre><code>const a = 1;</code></pre><blockquote><p>quoted</p></blockquote>';
    expect(htmlToMarkdown(html)).toBe(
      [
        '## Release notes',
        '',
        'Hello **bold** and _italic_, ~~old~~ under.',
        '',
        '-   one',
        '-   two',
        '',
        '1.  first',
        '',
        '[a link](https://ex.com/a) `x()`',
        '',
        '```',
        'const a = 1;',
        '```',
        '',
        '> quoted',
      ].join('\n'),
    );
  });

  it('escapes Markdown in text and drops unsafe links and scripts', () => {
    expect(htmlToMarkdown('<p>2 * 3 = 6 and _x_ # not a heading</p>')).toBe('2 \\* 3 = 6 and \\_x\\_ # not a heading');
    expect(htmlToMarkdown('<p><a href="javascript:alert(1)">click</a><script>alert(1)</script></p>')).toBe('click');
    expect(htmlToMarkdown('<p>a &amp; b &lt;c&gt;</p>')).toBe('a & b <c>');
    expect(htmlToMarkdown('')).toBe('');
  });
});
