import { decodeHtmlEntities } from './html-markup.js';

/**
 * Post content is stored as HTML (as the reference's editor writes it). These helpers turn it
 * into what each platform accepts.
 */

/** Plain text: paragraphs and line breaks become newlines, every tag goes. */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p[^>]*>/gi, '\n')
    .replace(/<\/?(p|div)[^>]*>/gi, '')
    .replace(/<li[^>]*>/gi, '• ')
    .replace(/<\/li>/gi, '\n')
    .replace(/<[^>]+>/g, '');
  return decodeHtmlEntities(text).replace(/\n{3,}/g, '\n\n').trim();
}

/**
 * HTML restricted to the tags in `allowed` (others are unwrapped, their text kept), with the usual
 * synonyms mapped (`strong` → `b`, `em` → `i`), paragraphs turned into newlines.
 */
export function restrictHtml(html: string, allowed: readonly string[], synonyms: Record<string, string> = { strong: 'b', em: 'i', ins: 'u', strike: 's', del: 's' }): string {
  const keep = new Set(allowed);
  const out = html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p[^>]*>/gi, '\n')
    .replace(/<\/?(p|div)[^>]*>/gi, '')
    .replace(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>/g, (_m, close: string, rawName: string, attrs: string) => {
      const name = synonyms[rawName.toLowerCase()] ?? rawName.toLowerCase();
      if (!keep.has(name)) return '';
      if (close) return `</${name}>`;
      // Only href survives, on links.
      const href = name === 'a' ? /\shref\s*=\s*("[^"]*"|'[^']*')/i.exec(attrs)?.[1] : undefined;
      return href ? `<a href=${href}>` : `<${name}>`;
    });
  return out.replace(/&nbsp;/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
}
