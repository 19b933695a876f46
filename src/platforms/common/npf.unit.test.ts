import { describe, expect, it } from 'vitest';
import { htmlToNpf, npfLength, npfToText, splitTextBlock, type NpfTextBlock } from './npf.js';

/** The text a range covers, counted in code points as Tumblr counts. */
const covered = (b: NpfTextBlock, i: number) => [...b.text].slice(b.formatting![i]!.start, b.formatting![i]!.end).join('');

describe('htmlToNpf', () => {
  it('one text block per paragraph, entities decoded, whitespace collapsed', () => {
    expect(htmlToNpf('<p>Hello   &amp;\n welcome</p>\n<p>Second &lt;line&gt;</p>')).toEqual([
      { type: 'text', text: 'Hello & welcome' },
      { type: 'text', text: 'Second <line>' },
    ]);
    expect(htmlToNpf('')).toEqual([]);
    expect(htmlToNpf('<p></p><p>  </p>')).toEqual([]);
    expect(htmlToNpf('plain text, no tags')).toEqual([{ type: 'text', text: 'plain text, no tags' }]);
  });

  it('bold, italic, strikethrough, small and links as ranges over the right characters', () => {
    const [b] = htmlToNpf('<p>Hello <strong>world</strong>, <em>so <s>very</s></em> <small>tiny</small> <a href="https://example.com/a?b=1&amp;c=2">link</a></p>');
    expect(b!.text).toBe('Hello world, so very tiny link');
    expect(b!.formatting).toEqual([
      { start: 6, end: 11, type: 'bold' },
      { start: 13, end: 20, type: 'italic' },
      { start: 16, end: 20, type: 'strikethrough' },
      { start: 21, end: 25, type: 'small' },
      { start: 26, end: 30, type: 'link', url: 'https://example.com/a?b=1&c=2' },
    ]);
    expect(b!.formatting!.map((_, i) => covered(b!, i))).toEqual(['world', 'so very', 'very', 'tiny', 'link']);
  });

  it('counts offsets in code points, as Tumblr does, not UTF-16 units', () => {
    const [b] = htmlToNpf('<p>🌳 ø <b>bold</b> 👨‍👨‍👦 <i>it</i></p>');
    // 🌳 is one code point (two UTF-16 units); the family is five code points (eight units).
    expect(b!.formatting).toEqual([
      { start: 4, end: 8, type: 'bold' },
      { start: 15, end: 17, type: 'italic' },
    ]);
    expect(covered(b!, 0)).toBe('bold');
    expect(covered(b!, 1)).toBe('it');
    expect(b!.text.indexOf('bold')).toBe(5);
    expect(npfLength(b!.text)).toBe(17);
  });

  it('headings, quotes, lists with nesting levels, and pre as chat', () => {
    const html = [
      '<h1>Title</h1><h2>Sub</h2><h3>Small heading</h3>',
      '<blockquote><p>quoted</p><blockquote><p>deeper</p></blockquote></blockquote>',
      '<ol><li>one<ul><li><p>nested <b>b</b></p></li></ul></li><li>two</li></ol>',
      '<pre>  code\n  kept</pre>',
    ].join('');
    expect(htmlToNpf(html)).toEqual([
      { type: 'text', subtype: 'heading1', text: 'Title' },
      { type: 'text', subtype: 'heading2', text: 'Sub' },
      { type: 'text', subtype: 'heading2', text: 'Small heading' },
      { type: 'text', subtype: 'indented', text: 'quoted' },
      { type: 'text', subtype: 'indented', indent_level: 1, text: 'deeper' },
      { type: 'text', subtype: 'ordered-list-item', text: 'one' },
      { type: 'text', subtype: 'unordered-list-item', indent_level: 1, text: 'nested b', formatting: [{ start: 7, end: 8, type: 'bold' }] },
      { type: 'text', subtype: 'ordered-list-item', text: 'two' },
      { type: 'text', subtype: 'chat', text: '  code\n  kept' },
    ]);
  });

  it('line breaks stay inside the block; trailing spaces never leave a range past the end', () => {
    const [b] = htmlToNpf('<p><b>first </b><br>second <i>end  </i></p>');
    expect(b!.text).toBe('first\nsecond end');
    for (const f of b!.formatting!) expect(f.end).toBeLessThanOrEqual(npfLength(b!.text));
    expect(b!.formatting).toEqual([
      { start: 0, end: 5, type: 'bold' },
      { start: 13, end: 16, type: 'italic' },
    ]);
  });

  it('same-type ranges that touch are merged; unsafe links and underline are dropped', () => {
    const [b] = htmlToNpf('<p><b>ab</b><strong>cd</strong> <a href="javascript:alert(1)">x</a> <u>u</u> <a href="mailto:a@b.c">m</a></p>');
    expect(b).toEqual({ type: 'text', text: 'abcd x u m', formatting: [{ start: 0, end: 4, type: 'bold' }, { start: 9, end: 10, type: 'link', url: 'mailto:a@b.c' }] });
  });

  it('a mark left open across blocks continues in the next block', () => {
    expect(htmlToNpf('<p><b>one</p><p>two</b> three</p>')).toEqual([
      { type: 'text', text: 'one', formatting: [{ start: 0, end: 3, type: 'bold' }] },
      { type: 'text', text: 'two three', formatting: [{ start: 0, end: 3, type: 'bold' }] },
    ]);
  });

  it('splits a block longer than the limit at a space, splitting its ranges', () => {
    const words = Array.from({ length: 10 }, (_, i) => `w${i}`).join(' ');
    const blocks = htmlToNpf(`<p>${words.slice(0, 6)}<b>${words.slice(6, 14)}</b>${words.slice(14)}</p>`, { maxBlockLength: 10 });
    expect(blocks.map((b) => b.text)).toEqual(['w0 w1 w2', 'w3 w4 w5', 'w6 w7 w8', 'w9']);
    for (const b of blocks) expect(npfLength(b.text)).toBeLessThanOrEqual(10);
    const bolded = blocks.flatMap((b) => (b.formatting ?? []).map((f) => [...b.text].slice(f.start, f.end).join('')));
    expect(bolded.join('|')).toBe('w2|w3 w4');
    // No space at all: cut hard at the limit (counted in code points).
    expect(splitTextBlock({ type: 'text', text: '🌳'.repeat(5) }, 2).map((b) => b.text)).toEqual(['🌳🌳', '🌳🌳', '🌳']);
  });

  it('npfToText joins the text blocks', () => {
    expect(npfToText([{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }])).toBe('a\nb');
  });
});
