import type { IntegrationSettings } from '../../api/queries.js';
// The server's own functions, imported by path: the composer counts exactly as POST /posts
// validates (same libraries: twitter-text for X, unicode-segmenter for graphemes).
import { htmlToText } from '../../../../src/platforms/common/html.js';
import { countText } from '../../../../src/platforms/text-length.js';
// The URLs the shortener replaces, found as the server finds them (trailing punctuation left out).
import { withSampleLinks } from '../../../../src/core/short-links.js';

/** The unit `maxLength` is counted in (the server's own wording in its refusals). */
export { countingUnit } from '../../../../src/platforms/text-length.js';

export type Counting = IntegrationSettings['counting'];

const encoder = new TextEncoder();

/**
 * The length of plain `text` as the platform counts it. The server's `countText`, except for
 * `bytes`, where it uses Node's Buffer: TextEncoder gives the same UTF-8 length (a lone surrogate
 * is U+FFFD, 3 bytes, in both); counting.test.ts checks the two agree.
 */
export function countFor(text: string, counting: Counting): number {
  return counting === 'bytes' ? encoder.encode(text).length : countText(text, counting);
}

/** Escapes the characters HTML gives a meaning to. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * What the composer sends as `content`: each line of the plain text a paragraph (an empty line an
 * empty paragraph, so blank lines survive), the text escaped. The API stores HTML and turns it into
 * each platform's form (plain text, Telegram's HTML, Markdown); a bare `&` or `<` in plain text
 * would otherwise reach an HTML platform unescaped.
 */
export function textToHtml(text: string): string {
  const t = text.replace(/\r\n?/g, '\n');
  if (t.trim() === '') return '';
  return t
    .split('\n')
    .map((line) => `<p>${escapeHtml(line)}</p>`)
    .join('');
}

/** Stored content (HTML, or plain text from API clients) → the text the composer edits. */
export function htmlToPlain(html: string): string {
  return htmlToText(html);
}

/** The text the platform receives from what the person typed, as the server reads it. */
export function platformText(text: string): string {
  return htmlToText(textToHtml(text));
}

/**
 * The text as it would be after "Shorten links": each URL the length of a short link
 * (`shortLinkLength` from GET /short-links/settings), found by the server's own `withSampleLinks`
 * (POST /posts counts the shortened text the same way). Counting modes that already count every URL
 * as a fixed length (X's weighted count, Mastodon's 23) are left alone: a short link is still a URL there.
 */
export function withShortLinks(text: string, counting: Counting, shortLinkLength: number): string {
  if (counting === 'twitter-weighted' || counting === 'mastodon') return text;
  return withSampleLinks(text, 'x'.repeat(Math.max(0, Math.round(shortLinkLength))));
}

/**
 * The length the server checks against `maxLength` for text typed in the composer; with
 * `shortLinkLength` (short links on) the URLs count as the short links they will become.
 */
export function lengthOnPlatform(text: string, counting: Counting, shortLinkLength?: number): number {
  const plain = platformText(text);
  return countFor(shortLinkLength === undefined ? plain : withShortLinks(plain, counting, shortLinkLength), counting);
}
