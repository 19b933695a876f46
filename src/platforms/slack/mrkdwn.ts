/**
 * Stored post HTML → Slack mrkdwn: `*bold*`, `_italic_`, `~strike~`, `` `code` ``, fenced blocks,
 * `>` quotes, `<url|text>` links. Slack has no headings or underline (headings become bold lines,
 * underline is dropped). In the text, `&`, `<` and `>` must be sent as `&amp;`, `&lt;`, `&gt;`
 * (and only those): Slack reads a bare `<` as the start of a link or mention.
 */

const INLINE: Record<string, string> = { strong: '*', b: '*', em: '_', i: '_', s: '~', del: '~', strike: '~', code: '`' };
const BLOCKS = new Set(['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'ul', 'ol', 'blockquote', 'pre']);
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decode(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);/g, (m, name: string) => {
    const n = /^#x/i.test(name) ? parseInt(name.slice(2), 16) : name.startsWith('#') ? Number(name.slice(1)) : undefined;
    if (n !== undefined) return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : m;
    return NAMED[name.toLowerCase()] ?? m;
  });
}

/** The three control characters Slack wants escaped. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function hrefOf(attrs: string): string | undefined {
  const m = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attrs);
  const raw = m?.[1] ?? m?.[2] ?? m?.[3];
  return raw === undefined ? undefined : decode(raw).trim();
}

interface Open {
  tag: string;
  at: number;
  href?: string;
}

export function htmlToMrkdwn(html: string): string {
  let out = '';
  const open: Open[] = [];
  const lists: { ordered: boolean; n: number }[] = [];
  let pre = 0;
  const lineStart = () => {
    if (out !== '' && !out.endsWith('\n')) out += '\n';
  };

  const TOKEN = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>|([^<]+)|</g;
  for (const m of html.replace(/<!--[\s\S]*?-->/g, '').matchAll(TOKEN)) {
    const [whole, close, rawName, attrs = '', text] = m;
    if (rawName === undefined) {
      const t = decode(text ?? whole);
      if (pre === 0 && /^\s*$/.test(t) && t.includes('\n')) continue;
      out += escapeSlack(t);
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
        const indent = '    '.repeat(Math.max(0, lists.length - 1));
        out += list?.ordered ? `${indent}${++list.n}. ` : `${indent}• `;
      }
      if (tag === 'a' || tag === 'blockquote' || /^h[1-6]$/.test(tag) || (INLINE[tag] !== undefined && pre === 0)) {
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
    let idx = -1;
    for (let i = open.length - 1; i >= 0; i--) {
      if (open[i]!.tag === tag) {
        idx = i;
        break;
      }
    }
    if (idx !== -1) {
      const o = open[idx]!;
      open.splice(idx);
      out = out.slice(0, o.at) + closeSpan(o, out.slice(o.at));
    }
    if (BLOCKS.has(tag) && tag !== 'blockquote') out += '\n';
  }
  return out
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function closeSpan(o: Open, inner: string): string {
  const lead = /^\s*/.exec(inner)![0];
  const trail = inner.length > lead.length ? /\s*$/.exec(inner)![0] : '';
  const core = inner.slice(lead.length, inner.length - trail.length);
  if (o.tag === 'a') {
    if (!o.href || !/^(https?:\/\/|mailto:)/i.test(o.href)) return inner;
    const url = escapeSlack(o.href.replace(/\|/g, '%7C').replace(/\s/g, '%20'));
    return core === '' || core === escapeSlack(o.href) ? `${lead}<${url}>${trail}` : `${lead}<${url}|${core}>${trail}`;
  }
  if (o.tag === 'blockquote') {
    return `${inner
      .replace(/\n+$/, '')
      .split('\n')
      .map((l) => `> ${l}`)
      .join('\n')}\n`;
  }
  if (core === '') return inner;
  const mark = /^h[1-6]$/.test(o.tag) ? '*' : INLINE[o.tag]!;
  return `${lead}${mark}${core}${mark}${trail}`;
}
