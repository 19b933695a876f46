import { splitGraphemes } from 'unicode-segmenter/grapheme';

/** Most characters a Threads post's text may have, in Threads' own counting ({@link countThreadsText}). */
export const THREADS_TEXT_LIMIT = 500;
/** Most distinct links a post may carry (THREADS_API__LINK_LIMIT_EXCEEDED past it). */
export const THREADS_LINK_LIMIT = 5;

// An emoji cluster: a pictograph (with its modifiers, ZWJ sequences), a flag's regional indicators, a keycap.
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/**
 * The length of a post's text as Threads counts it against its 500-character limit: one per
 * user-perceived character, except that an emoji counts as the number of its UTF-8 bytes
 * (Meta: "emojis are counted as the number of UTF-8 bytes"), so 👍 is 4 and 👍🏽 is 8.
 */
export function countThreadsText(text: string): number {
  let n = 0;
  for (const g of splitGraphemes(text)) n += EMOJI.test(g) ? Buffer.byteLength(g, 'utf8') : 1;
  return n;
}

/**
 * The distinct links of a text as Threads counts them: every http(s) URL and every `www.` address
 * (trailing punctuation is not part of a link).
 */
export function threadsLinks(text: string): string[] {
  const found = text.match(/\b(?:https?:\/\/|www\.)[^\s<>"]+/gi) ?? [];
  return [...new Set(found.map((u) => u.replace(/[.,;:!?)\]}'"]+$/, '').replace(/^https?:\/\//i, '').replace(/\/$/, '').toLowerCase()))];
}
