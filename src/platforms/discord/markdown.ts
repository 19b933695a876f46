/**
 * Stored post HTML → Discord Markdown. Discord renders `**bold**`, `*italic*`, `__underline__`,
 * `~~strike~~`, `` `code` ``, fenced blocks, `> ` quotes, `#` headings, lists and masked links
 * `[text](url)`. Newlines are shown as they are, so paragraphs become single newlines and an
 * empty paragraph becomes a blank line. Literal `*` or `_` typed by the user are left alone:
 * the editor is a Markdown editor, so they are taken to be Markdown.
 */

const INLINE: Record<string, string> = { strong: '**', b: '**', em: '*', i: '*', u: '__', s: '~~', del: '~~', strike: '~~', code: '`' };
const BLOCKS = new Set(['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'ul', 'ol', 'blockquote', 'pre']);
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Decodes named (the usual few) and numeric entities in one pass, so `&amp;lt;` stays `&lt;`. */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);/g, (m, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return safeCodePoint(parseInt(name.slice(2), 16)) ?? m;
    if (name.startsWith('#')) return safeCodePoint(Number(name.slice(1))) ?? m;
    return NAMED[name.toLowerCase()] ?? m;
  });
}

function safeCodePoint(n: number): string | undefined {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : undefined;
}

export function hrefOf(attrs: string): string | undefined {
  const m = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attrs);
  const raw = m?.[1] ?? m?.[2] ?? m?.[3];
  return raw === undefined ? undefined : decodeHtmlEntities(raw).trim();
}

interface Open {
  tag: string;
  at: number;
  href?: string;
}

export function htmlToDiscordMarkdown(html: string): string {
  let out = '';
  const open: Open[] = [];
  const lists: { ordered: boolean; n: number }[] = [];
  let pre = 0;

  const lineStart = () => {
    if (out !== '' && !out.endsWith('\n')) out += '\n';
  };

  const source = html.replace(/<!--[\s\S]*?-->/g, '');
  const TOKEN = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>|([^<]+)|</g;
  for (const m of source.matchAll(TOKEN)) {
    const [whole, close, rawName, attrs = '', text] = m;
    if (rawName === undefined) {
      const t = text === undefined ? whole : decodeHtmlEntities(text);
      // Whitespace between block tags (source formatting) is not content.
      if (pre === 0 && /^\s*$/.test(t) && t.includes('\n')) continue;
      out += t;
      continue;
    }
    const tag = rawName.toLowerCase();
    if (tag === 'br') {
      out += '\n';
      continue;
    }
    if (!close) {
      if (BLOCKS.has(tag)) lineStart();
      if (tag === 'pre') {
        out += '```\n';
        pre++;
      } else if (tag === 'ul' || tag === 'ol') {
        lists.push({ ordered: tag === 'ol', n: 0 });
      } else if (tag === 'li') {
        const list = lists[lists.length - 1];
        const indent = '  '.repeat(Math.max(0, lists.length - 1));
        if (list?.ordered) out += `${indent}${++list.n}. `;
        else out += `${indent}- `;
      } else if (/^h[1-3]$/.test(tag)) {
        out += `${'#'.repeat(Number(tag[1]))} `;
      }
      if (tag === 'a' || tag === 'blockquote' || /^h[4-6]$/.test(tag) || (INLINE[tag] !== undefined && pre === 0)) {
        open.push({ tag, at: out.length, href: tag === 'a' ? hrefOf(attrs) : undefined });
      }
      continue;
    }
    // A closing tag.
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
    const idx = findLast(open, tag);
    if (idx !== -1) {
      const o = open[idx]!;
      open.splice(idx);
      const inner = out.slice(o.at);
      out = out.slice(0, o.at) + closeSpan(o, inner);
    }
    // A quote already ends its last line.
    if (BLOCKS.has(tag) && tag !== 'blockquote') out += '\n';
  }
  return out
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function findLast(open: Open[], tag: string): number {
  for (let i = open.length - 1; i >= 0; i--) if (open[i]!.tag === tag) return i;
  return -1;
}

/** Wraps `inner` for a closed span; spaces inside the marks would break them, so they move out. */
function closeSpan(o: Open, inner: string): string {
  const lead = /^\s*/.exec(inner)![0];
  const trail = inner.length > lead.length ? /\s*$/.exec(inner)![0] : '';
  const core = inner.slice(lead.length, inner.length - trail.length);
  if (o.tag === 'a') {
    const href = o.href;
    if (!href || !/^(https?:\/\/|mailto:)/i.test(href)) return inner;
    const url = href.replace(/\s/g, '%20').replace(/\)/g, '%29');
    if (core === '' || core === href) return `${lead}${url}${trail}`;
    // Brackets inside the label would end it early.
    return `${lead}[${core.replace(/[[\]]/g, (c) => `\\${c}`)}](${url})${trail}`;
  }
  if (o.tag === 'blockquote') {
    const lines = inner.replace(/\n+$/, '').split('\n');
    return `${lines.map((l) => `> ${l}`).join('\n')}\n`;
  }
  if (/^h[4-6]$/.test(o.tag)) return core === '' ? inner : `${lead}**${core}**${trail}`;
  const mark = INLINE[o.tag]!;
  if (core === '') return inner;
  return `${lead}${mark}${core}${mark}${trail}`;
}
