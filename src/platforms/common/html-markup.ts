/**
 * Stored post HTML → a chat platform's lightweight markup (Discord Markdown, Slack mrkdwn…).
 * One walker over the HTML; each platform gives its dialect: marks, list bullets, headings,
 * links and text escaping. Spaces inside a mark would break it, so they move outside.
 */

export interface MarkupDialect {
  /** inline tag → the mark that wraps its text (`strong` → `**`) */
  inline: Record<string, string>;
  /** text as the platform must receive it (Slack escapes `&`, `<`, `>`) */
  escapeText(text: string): string;
  bullet: string;
  /** one nesting level of list indentation */
  indent: string;
  /** a line prefix for heading levels that have one (`# ` for h1 on Discord), else undefined */
  headingPrefix(level: number): string | undefined;
  /** the mark wrapping headings without a prefix */
  headingMark: string;
  /** a link with its (non-empty) label, `href` already checked to be http(s) or mailto */
  link(href: string, label: string): string;
  /** a link whose label is empty or the URL itself */
  bareLink(href: string): string;
}

const BLOCKS = new Set(['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'ul', 'ol', 'blockquote', 'pre']);
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function safeCodePoint(n: number): string | undefined {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : undefined;
}

/** Decodes named (the usual few) and numeric entities in one pass, so `&amp;lt;` stays `&lt;`. */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);/g, (m, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return safeCodePoint(parseInt(name.slice(2), 16)) ?? m;
    if (name.startsWith('#')) return safeCodePoint(Number(name.slice(1))) ?? m;
    return NAMED[name.toLowerCase()] ?? m;
  });
}

function hrefOf(attrs: string): string | undefined {
  const m = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attrs);
  const raw = m?.[1] ?? m?.[2] ?? m?.[3];
  return raw === undefined ? undefined : decodeHtmlEntities(raw).trim();
}

interface Open {
  tag: string;
  at: number;
  href?: string;
}

export function htmlToMarkup(html: string, d: MarkupDialect): string {
  let out = '';
  const open: Open[] = [];
  const lists: { ordered: boolean; n: number }[] = [];
  let pre = 0;
  const lineStart = () => {
    if (out !== '' && !out.endsWith('\n')) out += '\n';
  };

  function closeSpan(o: Open, inner: string): string {
    const lead = /^\s*/.exec(inner)![0];
    const trail = inner.length > lead.length ? /\s*$/.exec(inner)![0] : '';
    const core = inner.slice(lead.length, inner.length - trail.length);
    if (o.tag === 'a') {
      if (!o.href || !/^(https?:\/\/|mailto:)/i.test(o.href)) return inner;
      const bare = core === '' || core === o.href || core === d.escapeText(o.href);
      return `${lead}${bare ? d.bareLink(o.href) : d.link(o.href, core)}${trail}`;
    }
    if (o.tag === 'blockquote') {
      return `${inner
        .replace(/\n+$/, '')
        .split('\n')
        .map((l) => `> ${l}`)
        .join('\n')}\n`;
    }
    if (core === '') return inner;
    const mark = /^h[1-6]$/.test(o.tag) ? d.headingMark : d.inline[o.tag]!;
    return `${lead}${mark}${core}${mark}${trail}`;
  }

  const TOKEN = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>|([^<]+)|</g;
  for (const m of html.replace(/<!--[\s\S]*?-->/g, '').matchAll(TOKEN)) {
    const [whole, close, rawName, attrs = '', text] = m;
    if (rawName === undefined) {
      const t = text === undefined ? whole : decodeHtmlEntities(text);
      // Whitespace between block tags (source formatting) is not content.
      if (pre === 0 && /^\s*$/.test(t) && t.includes('\n')) continue;
      out += d.escapeText(t);
      continue;
    }
    const tag = rawName.toLowerCase();
    if (tag === 'br') {
      out += '\n';
      continue;
    }
    if (!close) {
      if (BLOCKS.has(tag)) lineStart();
      const heading = /^h([1-6])$/.exec(tag);
      const prefix = heading ? d.headingPrefix(Number(heading[1])) : undefined;
      if (tag === 'pre') {
        out += '```\n';
        pre++;
      } else if (tag === 'ul' || tag === 'ol') {
        lists.push({ ordered: tag === 'ol', n: 0 });
      } else if (tag === 'li') {
        const list = lists[lists.length - 1];
        const indent = d.indent.repeat(Math.max(0, lists.length - 1));
        out += list?.ordered ? `${indent}${++list.n}. ` : `${indent}${d.bullet}`;
      } else if (prefix !== undefined) {
        out += prefix;
      }
      if (tag === 'a' || tag === 'blockquote' || (heading && prefix === undefined) || (d.inline[tag] !== undefined && pre === 0)) {
        open.push({ tag, at: out.length, href: tag === 'a' ? hrefOf(attrs) : undefined });
      }
      continue;
    }
    if (tag === 'pre') {
      lineStart();
      out += '```\n';
      pre = Math.max(0, pre - 1);
      continue;
    }
    if (tag === 'ul' || tag === 'ol') {
      lists.pop();
      lineStart();
      continue;
    }
    const idx = open.map((o) => o.tag).lastIndexOf(tag);
    if (idx !== -1) {
      const o = open[idx]!;
      open.splice(idx);
      out = out.slice(0, o.at) + closeSpan(o, out.slice(o.at));
    }
    // A quote already ends its last line.
    if (BLOCKS.has(tag) && tag !== 'blockquote') out += '\n';
  }
  return out
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
