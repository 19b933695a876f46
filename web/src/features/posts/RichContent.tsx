import { createElement, Fragment, type ReactNode } from 'react';

/**
 * Post content is stored as HTML (as the reference's editor writes it) or plain text. It is shown
 * without ever handing markup to the browser: the HTML is parsed into an inert document
 * (DOMParser runs no scripts and loads nothing), and only an allow-list of text-formatting tags is
 * rebuilt as React elements. Everything else — scripts, styles, iframes, images, event handlers,
 * attributes — is dropped; unknown tags keep their text. Links keep only http(s) and mailto targets.
 */

const KEEP = new Set(['p', 'br', 'strong', 'b', 'em', 'i', 'u', 's', 'del', 'ins', 'strike', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'a', 'span', 'div', 'sub', 'sup', 'mark']);
/** Elements whose content is not text to show. */
const DROP = new Set(['script', 'style', 'template', 'iframe', 'object', 'embed', 'noscript', 'svg', 'math', 'head', 'title', 'img', 'video', 'audio', 'picture', 'source', 'canvas', 'form', 'input', 'button', 'select', 'textarea']);
/** Headings inside a post are shown one step below the page's own structure. */
const HEADING: Record<string, string> = { h1: 'h3', h2: 'h4', h3: 'h5', h4: 'h6', h5: 'h6', h6: 'h6' };

export function looksLikeHtml(content: string): boolean {
  return /<\/?[a-z][a-z0-9]*(\s[^>]*)?\/?>/i.test(content);
}

/** A link target kept only when it is a web or mail address (no javascript:, data:, relative tricks). */
export function safeHref(href: string | null): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function convert(node: Node, key: string): ReactNode {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const el = node as Element;
  const tag = el.tagName.toLowerCase();
  if (DROP.has(tag)) return null;
  const children = Array.from(el.childNodes).map((c, i) => convert(c, `${key}.${i}`));
  if (!KEEP.has(tag)) return createElement(Fragment, { key }, ...children);
  if (tag === 'br') return createElement('br', { key });
  if (tag === 'a') {
    const href = safeHref(el.getAttribute('href'));
    if (!href) return createElement(Fragment, { key }, ...children);
    return createElement('a', { key, href, target: '_blank', rel: 'noopener noreferrer nofollow' }, ...children);
  }
  return createElement(HEADING[tag] ?? tag, { key }, ...children);
}

/** The React elements of stored content: allow-listed formatting kept, everything else text. */
export function renderContent(content: string): ReactNode {
  if (!looksLikeHtml(content)) return <p className="plain-text">{content}</p>;
  const doc = new DOMParser().parseFromString(content, 'text/html');
  return Array.from(doc.body.childNodes).map((n, i) => convert(n, String(i)));
}

/** Plain text of stored content (list excerpts, screen-reader labels). */
export function contentText(content: string): string {
  if (!looksLikeHtml(content)) return content.trim();
  const doc = new DOMParser().parseFromString(content.replace(/<br\s*\/?>/gi, '\n').replace(/<\/(p|div|li|h[1-6]|blockquote)>/gi, '$&\n'), 'text/html');
  for (const el of Array.from(doc.body.querySelectorAll('script,style,template,noscript'))) el.remove();
  return (doc.body.textContent ?? '').replace(/\n{3,}/g, '\n\n').trim();
}

/** One line of a post for lists: its text, cut at `max` characters. */
export function excerpt(content: string, max = 120): string {
  const text = contentText(content).replace(/\s+/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

/** A post's content shown safely (see the module comment). */
export function RichContent({ content, className }: { content: string; className?: string }) {
  if (content.trim() === '') return <p className="hint">(no text)</p>;
  return <div className={`rich-content${className ? ` ${className}` : ''}`}>{renderContent(content)}</div>;
}
