import type { Db, Tx } from '../db/client.js';
import { decodeHtmlEntities } from '../platforms/common/html-markup.js';

/**
 * Short links (issue 32): the publishing engine's port. A post row with `shortLink` has every
 * http(s) URL of its text replaced by a short link when it is published (not when it is saved),
 * made once per row and URL and reused by every retry. `modules/links/` implements it; `deps.ts`
 * wires it.
 */
export interface LinkShortenerPort {
  /** The short links already made for a post row: the URL as written → its short URL. */
  findForPost(q: Tx | Db, postId: string): Promise<Map<string, string>>;
  /**
   * Makes the missing short links of a post row (its own commit, outside the engine's
   * transaction: an outside provider is an HTTP call). Safe to repeat: a URL already shortened
   * is kept. Throws `ShortLinkFailure`.
   */
  shorten(post: ShortenRequest): Promise<void>;
}

export interface ShortenRequest {
  organizationId: string;
  postId: string;
  group: string;
  channel: { id: string; identifier: string; name: string };
  urls: string[];
}

/** Why a post's links could not be shortened; `retryable` when the provider may answer later. */
export class ShortLinkFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ShortLinkFailure';
  }
}

// An http(s) URL up to whitespace, a quote or a tag; trailing sentence punctuation is not part of it.
const URL_PATTERN = /https?:\/\/[^\s<>"'`]+/gi;
const TRAILING = /[.,;:!?'"’”)\]}*_~]+$/;

/** `raw` without trailing punctuation, keeping a closing bracket the URL opened (`…/Foo_(bar)`). */
function trimUrl(raw: string): string {
  let url = raw;
  for (;;) {
    const m = TRAILING.exec(url);
    if (!m) return url;
    let cut = m[0];
    // keep balanced brackets: "(see https://x.org/a_(b))" ends the URL after "(b)"
    while (cut.length > 0) {
      const head = url.slice(0, url.length - cut.length + 1);
      const ch = cut[0]!;
      const open = ch === ')' ? '(' : ch === ']' ? '[' : ch === '}' ? '{' : undefined;
      if (open && count(head, open) >= count(head, ch)) cut = cut.slice(1);
      else break;
    }
    if (cut.length === 0) return url;
    url = url.slice(0, url.length - cut.length);
  }
}

function count(s: string, ch: string) {
  let n = 0;
  for (const c of s) if (c === ch) n++;
  return n;
}

/** The http(s) URLs written in plain `text`, each once, in order. */
export function findUrls(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.matchAll(URL_PATTERN)) {
    const url = trimUrl(m[0]);
    if (isShortenable(url)) seen.add(url);
  }
  return [...seen];
}

/** A URL worth shortening: parses, and has a host. */
function isShortenable(url: string): boolean {
  try {
    return new URL(url).hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * `html` (a post's stored content) with each URL found in `links` replaced, in text and in
 * attributes (`href`) alike; entity-encoded forms (`&amp;`) are matched as the URL they stand for.
 */
export function replaceUrls(html: string, links: Map<string, string>): string {
  return html.replace(URL_PATTERN, (raw) => {
    const trimmed = trimUrl(raw);
    const short = links.get(decodeHtmlEntities(trimmed));
    return short === undefined ? raw : short + raw.slice(trimmed.length);
  });
}

/** `text` with every URL replaced by `sample` (how long the text will be once its links are short). */
export function withSampleLinks(text: string, sample: string): string {
  return text.replace(URL_PATTERN, (raw) => {
    const trimmed = trimUrl(raw);
    return isShortenable(trimmed) ? sample + raw.slice(trimmed.length) : raw;
  });
}
