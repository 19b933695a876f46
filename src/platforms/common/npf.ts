import { decodeHtmlEntities } from './html-markup.js';

/**
 * Stored post HTML → Tumblr's Neue Post Format (NPF) text blocks.
 *
 * One text block per paragraph, heading, list item or quoted paragraph; inline marks become
 * formatting ranges. Tumblr counts `start`/`end` in Unicode CODE POINTS (its NPF spec: "`ø` and
 * `🌳` are both counted as single characters"), zero-based, end exclusive — not in UTF-16 units
 * as `String.length` does — so every offset here is a code-point count.
 *
 * Mapping (after the spec's own HTML examples): `h1` → `heading1`, `h2`–`h6` → `heading2` (NPF has
 * two heading sizes), `blockquote` paragraphs → `indented`, `li` → `ordered-list-item` /
 * `unordered-list-item`, nested lists and quotes → `indent_level` (counted from the left, at
 * most 7), `pre` → `chat` (Tumblr's monospace block, whitespace kept); `strong`/`b` → bold,
 * `em`/`i` → italic, `s`/`strike`/`del` → strikethrough, `small` → small, `a href` (http/https/
 * mailto) → link. Underline has no NPF form and is dropped; other tags keep only their text.
 * A block longer than Tumblr's 4,096 characters is split at a space, its ranges split with it.
 */

export type NpfTextSubtype = 'heading1' | 'heading2' | 'quirky' | 'quote' | 'indented' | 'chat' | 'ordered-list-item' | 'unordered-list-item';

export type NpfFormatType = 'bold' | 'italic' | 'strikethrough' | 'small' | 'link';

export interface NpfFormatting {
  start: number;
  end: number;
  type: NpfFormatType;
  /** for `link` */
  url?: string;
}

export interface NpfTextBlock {
  type: 'text';
  text: string;
  subtype?: NpfTextSubtype;
  indent_level?: number;
  formatting?: NpfFormatting[];
}

/** Tumblr's most characters (code points) in one text block. */
export const NPF_TEXT_BLOCK_MAX = 4096;
/** Deepest `indent_level` Tumblr takes. */
export const NPF_MAX_INDENT = 7;

/** The length of `text` as NPF counts it: code points. */
export function npfLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

const INLINE: Record<string, NpfFormatType> = { strong: 'bold', b: 'bold', em: 'italic', i: 'italic', s: 'strikethrough', strike: 'strikethrough', del: 'strikethrough', small: 'small' };
const PARAGRAPHS = new Set(['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'hr', 'figure', 'figcaption', 'table', 'tr', 'section', 'article', 'header', 'footer']);

function hrefOf(attrs: string): string | undefined {
  const m = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attrs);
  const raw = m?.[1] ?? m?.[2] ?? m?.[3];
  if (raw === undefined) return undefined;
  const href = decodeHtmlEntities(raw).trim();
  return /^(https?:\/\/|mailto:)/i.test(href) ? href : undefined;
}

interface OpenMark {
  tag: string;
  type?: NpfFormatType;
  url?: string;
  start: number;
}

/** Same-type ranges that touch or overlap are joined (Tumblr wants them non-overlapping). */
function mergeRanges(ranges: NpfFormatting[]): NpfFormatting[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: NpfFormatting[] = [];
  for (const r of sorted) {
    const prev = out.findLast((o) => o.type === r.type && o.url === r.url);
    if (prev && r.start <= prev.end) prev.end = Math.max(prev.end, r.end);
    else out.push({ ...r });
  }
  return out.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** Splits a block longer than `max` code points at the last whitespace before the limit (or hard), ranges included. */
export function splitTextBlock(block: NpfTextBlock, max = NPF_TEXT_BLOCK_MAX): NpfTextBlock[] {
  const chars = [...block.text];
  if (chars.length <= max) return [block];
  const out: NpfTextBlock[] = [];
  let from = 0;
  while (from < chars.length) {
    let to = Math.min(chars.length, from + max);
    if (to < chars.length) {
      let cut = to;
      while (cut > from && !/\s/.test(chars[cut]!)) cut--;
      if (cut > from) to = cut;
    }
    // Leading whitespace of a continuation is dropped (it was the split point).
    let start = from;
    while (start < to && from > 0 && /\s/.test(chars[start]!)) start++;
    const text = chars.slice(start, to).join('');
    const formatting = (block.formatting ?? [])
      .map((f) => ({ ...f, start: Math.max(f.start, start) - start, end: Math.min(f.end, to) - start }))
      .filter((f) => f.end > f.start);
    if (text !== '') {
      const { formatting: _drop, ...rest } = block;
      out.push({ ...rest, text, ...(formatting.length > 0 ? { formatting } : {}) });
    }
    from = to;
  }
  return out;
}

/** Converts stored post HTML to NPF text blocks (none for empty content). */
export function htmlToNpf(html: string, opts: { maxBlockLength?: number } = {}): NpfTextBlock[] {
  const blocks: NpfTextBlock[] = [];
  /** list and quote containers, outermost first */
  const containers: ('ul' | 'ol' | 'li' | 'blockquote')[] = [];
  let heading: NpfTextSubtype | undefined;
  let pre = 0;
  let text = '';
  let cp = 0;
  let ranges: NpfFormatting[] = [];
  let marks: OpenMark[] = [];

  const blockShape = (): { subtype?: NpfTextSubtype; indent: number } => {
    const depth = containers.filter((c) => c === 'ul' || c === 'ol' || c === 'blockquote').length;
    const indent = Math.min(NPF_MAX_INDENT, Math.max(0, depth - 1));
    if (heading) return { subtype: heading, indent: 0 };
    if (pre > 0) return { subtype: 'chat', indent: 0 };
    for (let i = containers.length - 1; i >= 0; i--) {
      const c = containers[i];
      if (c === 'li') {
        const list = containers.slice(0, i).findLast((x) => x === 'ul' || x === 'ol');
        return { subtype: list === 'ol' ? 'ordered-list-item' : 'unordered-list-item', indent };
      }
      if (c === 'blockquote') return { subtype: 'indented', indent };
    }
    return { indent: 0 };
  };

  /** Ends the current block: open marks are cut at the end (and go on in the next block). */
  const flush = () => {
    for (const m of marks) {
      if (m.type && cp > m.start) ranges.push({ start: m.start, end: cp, type: m.type, ...(m.url ? { url: m.url } : {}) });
    }
    // Trailing whitespace goes; ranges are clamped to what is left.
    const trimmed = pre > 0 ? text.replace(/\n+$/, '') : text.replace(/\s+$/, '');
    const len = npfLength(trimmed);
    if (len > 0) {
      const shape = blockShape();
      const formatting = mergeRanges(ranges.map((r) => ({ ...r, end: Math.min(r.end, len) })).filter((r) => r.end > r.start));
      const block: NpfTextBlock = { type: 'text', text: trimmed };
      if (shape.subtype) block.subtype = shape.subtype;
      if (shape.indent > 0) block.indent_level = shape.indent;
      if (formatting.length > 0) block.formatting = formatting;
      blocks.push(block);
    }
    text = '';
    cp = 0;
    ranges = [];
    marks = marks.map((m) => ({ ...m, start: 0 }));
  };

  const append = (raw: string) => {
    let t = raw;
    if (pre === 0) {
      t = t.replace(/[ \t\r\n\f]+/g, ' ');
      // No leading space in a block or after a line break / space.
      if (text === '' || /[ \n]$/.test(text)) t = t.replace(/^ /, '');
    }
    if (t === '') return;
    text += t;
    cp += npfLength(t);
  };

  const TOKEN = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>|([^<]+)|</g;
  const source = html.replace(/<!--[\s\S]*?-->/g, '').replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '');
  for (const m of source.matchAll(TOKEN)) {
    const [whole, close, rawName, attrs = '', rawText] = m;
    if (rawName === undefined) {
      append(rawText === undefined ? whole : decodeHtmlEntities(rawText));
      continue;
    }
    const tag = rawName.toLowerCase();
    if (tag === 'br') {
      if (text !== '') {
        text = text.replace(/ $/, '');
        cp = npfLength(text);
        for (const r of ranges) r.end = Math.min(r.end, cp);
        for (const o of marks) o.start = Math.min(o.start, cp);
        text += '\n';
        cp++;
      }
      continue;
    }
    if (!close) {
      if (tag === 'ul' || tag === 'ol' || tag === 'li' || tag === 'blockquote') {
        flush();
        containers.push(tag);
      } else if (PARAGRAPHS.has(tag)) {
        flush();
        const h = /^h([1-6])$/.exec(tag);
        if (h) heading = h[1] === '1' ? 'heading1' : 'heading2';
        if (tag === 'pre') pre++;
      } else if (INLINE[tag]) {
        marks.push({ tag, type: INLINE[tag], start: cp });
      } else if (tag === 'a') {
        const url = hrefOf(attrs);
        marks.push({ tag, ...(url ? { type: 'link' as const, url } : {}), start: cp });
      }
      continue;
    }
    // Closing tags.
    if (tag === 'ul' || tag === 'ol' || tag === 'li' || tag === 'blockquote') {
      flush();
      const idx = containers.lastIndexOf(tag);
      if (idx !== -1) containers.splice(idx);
      continue;
    }
    if (PARAGRAPHS.has(tag)) {
      flush();
      if (/^h[1-6]$/.test(tag)) heading = undefined;
      if (tag === 'pre') pre = Math.max(0, pre - 1);
      continue;
    }
    const idx = marks.map((x) => x.tag).lastIndexOf(tag);
    if (idx !== -1) {
      // Closing an outer mark closes the ones opened inside it too (as a browser would).
      for (const o of marks.splice(idx)) {
        if (o.type && cp > o.start) ranges.push({ start: o.start, end: cp, type: o.type, ...(o.url ? { url: o.url } : {}) });
      }
    }
  }
  flush();
  const max = opts.maxBlockLength ?? NPF_TEXT_BLOCK_MAX;
  return blocks.flatMap((b) => splitTextBlock(b, max));
}

/** The plain text of NPF blocks (text blocks only), one block a line. */
export function npfToText(blocks: readonly { type: string; text?: string }[]): string {
  return blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text!)
    .join('\n');
}
