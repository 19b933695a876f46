import type { ReactNode } from 'react';

/**
 * Plain-text platforms turn addresses, @mentions and #hashtags into links when they show a post;
 * the sandbox feed does the same so the person sees what their followers would. The mention and
 * tag targets are the platform's own address shapes (simulated: they are never fetched).
 */
const TOKEN = /(https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]'])|(^|[^\p{L}\p{N}_])(@[\p{L}\p{N}_][\p{L}\p{N}_.-]*[\p{L}\p{N}_]|@[\p{L}\p{N}_])|(^|[^\p{L}\p{N}_&])(#[\p{L}\p{N}_]+)/gu;

const PROFILE: Record<string, (handle: string) => string> = {
  x: (h) => `https://x.com/${h}`,
  bluesky: (h) => `https://bsky.app/profile/${h}`,
  threads: (h) => `https://www.threads.net/@${h}`,
  telegram: (h) => `https://t.me/${h}`,
};
const TAG: Record<string, (tag: string) => string> = {
  x: (t) => `https://x.com/hashtag/${t}`,
  bluesky: (t) => `https://bsky.app/hashtag/${t}`,
  threads: (t) => `https://www.threads.net/search?q=%23${t}`,
};

export interface Token {
  kind: 'text' | 'link' | 'mention' | 'tag';
  text: string;
  href?: string;
}

/** Splits plain text into text, links, mentions and hashtags (with where each points on `platform`). */
export function tokenize(text: string, platform: string): Token[] {
  const out: Token[] = [];
  let last = 0;
  const push = (t: Token) => {
    const prev = out.at(-1);
    if (t.kind === 'text' && prev?.kind === 'text') prev.text += t.text;
    else if (t.text) out.push(t);
  };
  for (const m of text.matchAll(TOKEN)) {
    const start = m.index;
    push({ kind: 'text', text: text.slice(last, start) });
    if (m[1]) {
      push({ kind: 'link', text: m[1], href: m[1] });
    } else if (m[3]) {
      push({ kind: 'text', text: m[2] ?? '' });
      const handle = m[3].slice(1);
      const profile = PROFILE[platform] ?? ((h: string) => `https://${platform}.sandbox.invalid/@${h}`);
      push({ kind: 'mention', text: m[3], href: profile(handle) });
    } else if (m[5]) {
      push({ kind: 'text', text: m[4] ?? '' });
      const tag = m[5].slice(1);
      const search = TAG[platform] ?? ((t: string) => `https://${platform}.sandbox.invalid/tags/${encodeURIComponent(t)}`);
      push({ kind: 'tag', text: m[5], href: search(encodeURIComponent(tag)) });
    }
    last = start + m[0].length;
  }
  push({ kind: 'text', text: text.slice(last) });
  return out;
}

/** Plain text as the platform shows it: line breaks kept, links, mentions and tags clickable. */
export function PlainPost({ text, platform }: { text: string; platform: string }): ReactNode {
  return (
    <p className="sbx-text">
      {tokenize(text, platform).map((t, i) =>
        t.kind === 'text' ? (
          t.text
        ) : (
          <a key={i} href={t.href} className={`sbx-${t.kind}`} target="_blank" rel="noopener noreferrer nofollow">
            {t.text}
          </a>
        ),
      )}
    </p>
  );
}
