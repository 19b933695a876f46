import { decodeHtmlEntities } from './html-markup.js';

/**
 * Stored post HTML → HTML restricted to the tags (and attributes) a platform takes, keeping the
 * block structure (paragraphs, headings, lists stay elements). For platforms whose body is HTML
 * (Medium's `html` format): `restrictHtml` in `html.ts` is for chat captions, where paragraphs
 * become newlines. Tags outside `allowed` are unwrapped (their text kept); `script`/`style` go
 * with their content; links keep only http(s)/mailto addresses, images only http(s) sources.
 */
export interface HtmlSubset {
  /** tag → the attributes it may keep (`a: ['href']`, `img: ['src', 'alt']`) */
  allowed: Record<string, readonly string[]>;
  /** tag → the allowed tag it becomes (`b` → `strong`, `h5` → `h4`) */
  synonyms?: Record<string, string>;
}

const VOID = new Set(['br', 'hr', 'img']);
const ATTR = /([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g;

const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function keptAttributes(tag: string, raw: string, names: readonly string[]): string {
  let out = '';
  for (const m of raw.matchAll(ATTR)) {
    const name = m[1]!.toLowerCase();
    if (!names.includes(name)) continue;
    const value = decodeHtmlEntities(m[2] ?? m[3] ?? m[4] ?? '').trim();
    if (name === 'href' && !/^(https?:\/\/|mailto:)/i.test(value)) continue;
    if (name === 'src' && !/^https?:\/\//i.test(value)) continue;
    out += ` ${name}="${escapeAttr(value)}"`;
  }
  // An image without a source, or a link without an address, is not kept as such.
  if ((tag === 'img' && !out.includes(' src=')) || (tag === 'a' && !out.includes(' href='))) return '\0';
  return out;
}

export function htmlSubset(html: string, subset: HtmlSubset): string {
  const cleaned = html.replace(/<!--[\s\S]*?-->/g, '').replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '');
  // Which opening tags were kept (a link without an address is dropped, and so is its closing tag).
  const openKept: Record<string, boolean[]> = {};
  return cleaned
    .replace(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)\b([^>]*)>/g, (_m, close: string, rawName: string, attrs: string) => {
      const lower = rawName.toLowerCase();
      const name = subset.synonyms?.[lower] ?? lower;
      const names = subset.allowed[name];
      if (!names) return '';
      if (close) {
        if (VOID.has(name)) return '';
        const kept = (openKept[name] ?? []).pop();
        return kept === false ? '' : `</${name}>`;
      }
      const kept = keptAttributes(name, attrs, names);
      if (kept === '\0') {
        if (!VOID.has(name)) (openKept[name] ??= []).push(false);
        return '';
      }
      if (!VOID.has(name)) (openKept[name] ??= []).push(true);
      return `<${name}${kept}>`;
    })
    .trim();
}
