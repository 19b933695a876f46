import { countGraphemes } from '../text-length.js';
/**
 * Bluesky shows links, mentions and hashtags as plain text unless the record carries `facets`:
 * annotations over UTF-8 *byte* ranges of `text` (not UTF-16 indexes, not graphemes). This is a
 * small version of `RichText.detectFacets` from `@atproto/api`.
 */

export type FacetFeature =
  | { $type: 'app.bsky.richtext.facet#link'; uri: string }
  | { $type: 'app.bsky.richtext.facet#mention'; did: string }
  | { $type: 'app.bsky.richtext.facet#tag'; tag: string };

export interface Facet {
  index: { byteStart: number; byteEnd: number };
  features: FacetFeature[];
}

/** Resolves a handle to its DID; undefined when no account has it. */
export type HandleResolver = (handle: string) => Promise<string | undefined>;

// Entities start at the beginning, after whitespace or an opening parenthesis, so that
// `me@example.com` is no mention and `https://x.com/#top` holds no hashtag.
// Only explicit http(s) URLs are linked: bare domains need the public TLD list to tell
// `example.com` from `file.txt`, and a wrong link is worse than a missing one.
const LINK = /(?<=^|[\s(])https?:\/\/[^\s<>"]+/giu;
// The trailing `\b` drops a sentence's final dot: "@alice.bsky.social." mentions alice.bsky.social.
const MENTION = /(?<=^|[\s(])@([a-zA-Z0-9.-]+)\b/gu;
// U+FE0F after `#` is the keycap emoji #️⃣, not a tag. Invisible separators (soft hyphen, word
// joiner, zero-width spaces, U+20E2) end a tag; U+20E2 combines, so it is excluded by lookahead.
const TAG = /(?<=^|\s)[#＃](?!\ufe0f)((?:(?!\u20E2)[^\s#＃\u00AD\u2060\u200A-\u200D])+)/gu;
const HANDLE = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;
const MAX_TAG_GRAPHEMES = 64;

const utf8Offset = (text: string, index: number) => Buffer.byteLength(text.slice(0, index), 'utf8');

const graphemes = countGraphemes;

/** A URL's end: sentence punctuation after it and an unbalanced `)` are not part of it. */
function trimUrl(url: string): string {
  let out = url.replace(/[.,;:!?'"]+$/u, '');
  if (out.endsWith(')') && !out.includes('(')) out = out.slice(0, -1).replace(/[.,;:!?'"]+$/u, '');
  return out;
}

/** Whether `handle` is a syntactically valid atproto handle (a domain name). */
export function isValidHandle(handle: string): boolean {
  return handle.length <= 253 && HANDLE.test(handle);
}

export async function detectFacets(text: string, resolve: HandleResolver): Promise<Facet[]> {
  const facets: Facet[] = [];
  const add = (start: number, length: number, feature: FacetFeature) =>
    facets.push({ index: { byteStart: utf8Offset(text, start), byteEnd: utf8Offset(text, start + length) }, features: [feature] });

  for (const m of text.matchAll(LINK)) {
    const url = trimUrl(m[0]);
    if (URL.canParse(url)) add(m.index, url.length, { $type: 'app.bsky.richtext.facet#link', uri: url });
  }

  const mentions = [...text.matchAll(MENTION)].filter((m) => isValidHandle(m[1]!));
  // One lookup per distinct handle; unknown handles stay plain text, as in the official app.
  const dids = new Map<string, string | undefined>();
  for (const m of mentions) {
    const handle = m[1]!.toLowerCase();
    if (!dids.has(handle)) dids.set(handle, await resolve(handle));
  }
  for (const m of mentions) {
    const did = dids.get(m[1]!.toLowerCase());
    if (did) add(m.index, m[0].length, { $type: 'app.bsky.richtext.facet#mention', did });
  }

  for (const m of text.matchAll(TAG)) {
    // Trailing punctuation ends the tag ("#news," tags "news"); a tag of digits only is a number.
    const tag = m[1]!.replace(/\p{P}+$/u, '');
    if (!tag || /^\d+$/u.test(tag) || graphemes(tag) > MAX_TAG_GRAPHEMES) continue;
    add(m.index, tag.length + 1, { $type: 'app.bsky.richtext.facet#tag', tag });
  }

  return facets.sort((a, b) => a.index.byteStart - b.index.byteStart);
}
