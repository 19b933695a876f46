import { describe, expect, it } from 'vitest';
import { htmlSubset } from './html-subset.js';

const MEDIUMISH = {
  allowed: { p: [], h1: [], h2: [], strong: [], em: [], a: ['href'], ul: [], li: [], img: ['src', 'alt'], br: [], figure: [] },
  synonyms: { b: 'strong', i: 'em', h3: 'h2' },
};

describe('htmlSubset', () => {
  it('keeps the block structure and the allowed tags, maps synonyms and unwraps the rest', () => {
    expect(htmlSubset('<p>Hello <b>bold</b> <span class="x">plain</span></p><h3>Part</h3><ul><li><p>one</p></li></ul>', MEDIUMISH)).toBe(
      '<p>Hello <strong>bold</strong> plain</p><h2>Part</h2><ul><li><p>one</p></li></ul>',
    );
  });

  it('keeps only the allowed attributes, and only safe addresses', () => {
    expect(htmlSubset('<p><a href="https://ex.com/?a=1&amp;b=2" onclick="x()" target="_blank">ok</a> <a href="javascript:alert(1)">bad</a></p>', MEDIUMISH)).toBe(
      '<p><a href="https://ex.com/?a=1&amp;b=2">ok</a> bad</p>',
    );
    expect(htmlSubset('<figure><img src="https://cdn.ex/a.png" alt="A &quot;cat&quot;" width="3"><img src="data:image/png;base64,xx"></figure>', MEDIUMISH)).toBe(
      '<figure><img src="https://cdn.ex/a.png" alt="A &quot;cat&quot;"></figure>',
    );
  });

  it('drops scripts, styles and comments with their content', () => {
    expect(htmlSubset('<p>a<script>alert(1)</script><style>p{}</style><!-- hidden -->b<br/>c</p>', MEDIUMISH)).toBe('<p>ab<br>c</p>');
  });
});
