import type { PlatformIdentifier } from '../../platforms/platform.js';
import type { ChatMessage } from './openai-client.js';

/**
 * Every prompt the writing help sends, and every limit of its own, in one place (issue 32). The
 * platforms' hard limits (length and how it is counted, threads) come from their adapters'
 * metadata; what is here is style: how each platform is written for, and how long a post there
 * should be (`aim`, never above the platform's own limit). The service counts every answer
 * itself: the model is told the limit but never trusted with it.
 */

export interface PlatformStyle {
  /** how posts there are written, for the model */
  style: string;
  /** the length to aim for, in the platform's unit (the service uses the smaller of this and the platform's limit) */
  aim?: number;
}

/** A Record over every identifier: a new platform without a style is a compile error. */
export const PLATFORM_STYLES: Record<PlatformIdentifier, PlatformStyle> = {
  x: { style: 'X (Twitter): short, punchy, conversational; one idea; at most one or two hashtags; no hashtag walls.' },
  bluesky: { style: 'Bluesky: short and conversational, a human voice; hashtags are rare there; no corporate tone.' },
  threads: { style: 'Threads: short, casual and friendly; a question invites replies; few or no hashtags (one topic tag at most).' },
  mastodon: { style: 'Mastodon: plain, honest and unhyped; CamelCase hashtags at the end help discovery and screen readers; no marketing tone.' },
  nostr: { style: 'Nostr: short, plain and direct; a few hashtags at most.', aim: 500 },
  wrapcast: { style: 'Farcaster (Warpcast): very short and casual, crypto-native audience; no hashtags.' },
  linkedin: { style: 'LinkedIn: professional and clear; a strong first line (the rest is folded), short paragraphs, a concrete takeaway; three to five relevant hashtags at the end.', aim: 1300 },
  'linkedin-page': { style: "LinkedIn company page: professional, the organisation's voice; a strong first line, short paragraphs, a call to action; three to five hashtags at the end.", aim: 1300 },
  facebook: { style: 'Facebook: friendly and warm, a few short paragraphs; a question or call to action; hashtags sparingly.', aim: 600 },
  instagram: { style: 'Instagram: a caption with a hook in the first line, emoji welcome, line breaks between ideas; a block of five to fifteen relevant hashtags at the end.', aim: 1200 },
  'instagram-standalone': { style: 'Instagram: a caption with a hook in the first line, emoji welcome, line breaks between ideas; a block of five to fifteen relevant hashtags at the end.', aim: 1200 },
  tiktok: { style: 'TikTok: a short, energetic caption for a video; trending-style hashtags (three to six) at the end.', aim: 300 },
  youtube: { style: 'YouTube: a video description; the first two lines sell the video, then details and links; a few hashtags at the end.', aim: 1500 },
  pinterest: { style: 'Pinterest: a descriptive, keyword-rich pin description saying what the pin shows and why to save it; no hashtag walls.' },
  reddit: { style: "Reddit: authentic and specific, no marketing voice (it is downvoted); give value first; no hashtags; the community's own tone.", aim: 1500 },
  lemmy: { style: 'Lemmy: like Reddit: genuine, informative, no marketing tone, no hashtags.', aim: 1500 },
  discord: { style: 'Discord: an announcement for a community server: friendly, scannable, short lines; Markdown is fine; no hashtags.', aim: 800 },
  slack: { style: 'Slack: a clear workspace message: the point first, short, scannable; no hashtags.', aim: 800 },
  telegram: { style: 'Telegram: a channel post: clear and direct, short paragraphs, emoji in moderation; hashtags rarely.', aim: 1000 },
  kick: { style: 'Kick: a short, hype chat message for a streaming community.' },
  twitch: { style: 'Twitch: a short, hype chat message for a streaming community.' },
  moltbook: { style: 'Moltbook: short and plain.' },
  skool: { style: 'Skool: a community post: friendly, helpful and personal, ends with a question; no hashtags.', aim: 1200 },
  whop: { style: 'Whop: a community update: friendly and concrete, a clear call to action; no hashtags.', aim: 1200 },
  vk: { style: 'VK: a friendly social post, a few short paragraphs; a few hashtags at the end.', aim: 800 },
  mewe: { style: 'MeWe: a friendly social post, a few short paragraphs.', aim: 800 },
  gmb: { style: 'Google Business Profile: a local business update: what, when, where, and a call to action; no hashtags.', aim: 750 },
  dribbble: { style: 'Dribbble: a design shot description: the idea, the process, the tools; concise.', aim: 600 },
  devto: { style: 'DEV: a developer article in Markdown: a clear title line, practical, code where it helps, friendly and technical.', aim: 6000 },
  hashnode: { style: 'Hashnode: a developer blog article in Markdown: practical, technical, well structured with headings.', aim: 6000 },
  medium: { style: 'Medium: a thoughtful article: a strong opening, headings, a personal voice, a conclusion.', aim: 6000 },
  wordpress: { style: 'WordPress: a blog article: a strong opening, headings, readable paragraphs, a conclusion.', aim: 6000 },
  tumblr: { style: 'Tumblr: informal, playful, personal; tags at the end.', aim: 800 },
  listmonk: { style: 'A newsletter e-mail: a clear subject-worthy first line, a friendly and skimmable body, one call to action.', aim: 3000 },
};

/** The writing help's own limits (besides the platforms'). */
export const ASSIST_LIMITS = {
  /** a generic suggestion (no channel chosen) aims for this many characters */
  genericAim: 500,
  /** alt text: the longest most platforms take (X 1,000; Mastodon 1,500; Bluesky 2,000), counted in characters */
  altTextMaxLength: 1000,
  /** hashtags when `count` is not given */
  defaultHashtags: 5,
  /** at most this many parts in a thread */
  maxThreadItems: 25,
  /** channels asked at the same time (a local model runs one at a time anyway) */
  concurrency: 3,
  /** creativity: drafts and rewrites a little, translations and alt text none */
  temperature: { creative: 0.7, exact: 0.2 },
} as const;

/** The separator a thread's parts are answered with: a line of three dashes. */
export const THREAD_SEPARATOR = '---';

const SYSTEM = [
  'You write social media posts for the user, who reviews every suggestion before anything is published.',
  'Answer with the text of the post only: no preamble, no explanation, no surrounding quotes, no Markdown code fences.',
  'Never invent facts, prices, dates, links or quotes that the user did not give.',
].join(' ');

export interface Target {
  /** platform display name and identifier; none for a generic suggestion */
  platform?: { identifier: PlatformIdentifier; displayName: string };
  /** the length never to pass, the length to aim for (at most `maxLength`), and their unit in words */
  maxLength: number;
  aim: number;
  unit: string;
}

function targetLines(t: Target): string[] {
  const lines: string[] = [];
  if (t.platform) lines.push(`Platform: ${t.platform.displayName}. ${PLATFORM_STYLES[t.platform.identifier].style}`);
  const refuses = t.platform ? ` (${t.platform.displayName} refuses longer posts)` : '';
  lines.push(
    t.aim < t.maxLength
      ? `Length: about ${t.aim} ${t.unit} or less; hard limit ${t.maxLength} ${t.unit}${refuses}.`
      : `Hard limit: at most ${t.maxLength} ${t.unit}${refuses}; stay well within it.`,
  );
  return lines;
}

/** The length a suggestion should aim for on a platform (its style's `aim`, never above its limit). */
export function aimFor(identifier: PlatformIdentifier | undefined, maxLength: number): number {
  const aim = identifier ? PLATFORM_STYLES[identifier].aim : ASSIST_LIMITS.genericAim;
  return Math.min(aim ?? maxLength, maxLength);
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const system = (...extra: string[]): ChatMessage => ({ role: 'system', content: [SYSTEM, ...extra].join('\n') });

export const PROMPTS = {
  draft(input: { brief: string; tone?: string; language?: string }, target: Target): ChatMessage[] {
    return [
      system(...targetLines(target)),
      user(
        [
          'Write a post from this brief.',
          input.tone ? `Tone: ${input.tone}.` : undefined,
          input.language ? `Write it in ${input.language}.` : "Write it in the brief's language.",
          '',
          'Brief:',
          input.brief,
        ]
          .filter((l) => l !== undefined)
          .join('\n'),
      ),
    ];
  },

  rewrite(input: { content: string; instructions?: string }, target: Target): ChatMessage[] {
    return [
      system(...targetLines(target)),
      user(
        [
          `Rewrite this post for ${target.platform?.displayName ?? 'social media'}, keeping its meaning, facts and links, in its language.`,
          input.instructions ? `Also: ${input.instructions}` : undefined,
          '',
          'Post:',
          input.content,
        ]
          .filter((l) => l !== undefined)
          .join('\n'),
      ),
    ];
  },

  thread(input: { content: string }, target: Target & { maxItems: number }): ChatMessage[] {
    return [
      system(
        ...targetLines({ ...target, aim: target.maxLength }).map((l) => l.replace(/^Hard limit: at most/, 'Hard limit for EACH part: at most')),
        `Split the text into a thread of at most ${target.maxItems} parts, in order. Separate the parts with a line holding only ${THREAD_SEPARATOR}. Do not number the parts unless the text asks for it.`,
      ),
      user(['Turn this text into a thread, keeping its meaning, facts, links and language:', '', input.content].join('\n')),
    ];
  },

  hashtags(input: { content: string; count: number }, target: Partial<Target>): ChatMessage[] {
    return [
      system(target.platform ? `Platform: ${target.platform.displayName}. ${PLATFORM_STYLES[target.platform.identifier].style}` : 'Platform: any social network.'),
      user(
        [
          `Suggest ${input.count} relevant hashtags for this post, most relevant first, in the post's language.`,
          'Answer with the hashtags only, each starting with #, separated by spaces; no other text.',
          '',
          'Post:',
          input.content,
        ].join('\n'),
      ),
    ];
  },

  altText(input: { imageDataUrl: string; language?: string }, target: Target): ChatMessage[] {
    return [
      system(
        `Write alt text for the image: what it shows that matters to someone who cannot see it, plainly, in one to three sentences; no "image of" or "picture of"; at most ${target.maxLength} ${target.unit}.`,
      ),
      {
        role: 'user',
        content: [
          { type: 'text', text: input.language ? `Write the alt text in ${input.language}.` : 'Write the alt text in English.' },
          { type: 'image_url', image_url: { url: input.imageDataUrl } },
        ],
      },
    ];
  },

  translate(input: { content: string; language: string }, target: Target): ChatMessage[] {
    return [
      system(
        ...targetLines(target),
        'Translate faithfully: keep the meaning, tone, line breaks, emoji, links, @mentions and hashtags (translate a hashtag only when it is a plain word).',
      ),
      user([`Translate this post into ${input.language}:`, '', input.content].join('\n')),
    ];
  },

  /** The one follow-up when an answer is over the limit: the count, the limit and the answer. */
  shorten(previous: ChatMessage[], answer: string, over: { length: number; maxLength: number; unit: string; part?: number }): ChatMessage[] {
    const what = over.part === undefined ? 'That text' : `Part ${over.part + 1} of that thread`;
    return [
      ...previous,
      { role: 'assistant', content: answer },
      user(
        `${what} is ${over.length} ${over.unit}; the limit is ${over.maxLength}. Shorten it to fit, well under the limit, keeping the meaning and links. ` +
          (over.part === undefined ? 'Answer with the shortened text only.' : `Answer with the whole thread again, parts separated by a line holding only ${THREAD_SEPARATOR}.`),
      ),
    ];
  },
};

/** The model's answer as plain text: code fences, a "Here is…" line and wrapping quotes removed. */
export function cleanAnswer(text: string): string {
  let t = text.trim();
  const fence = /^```[\w-]*\n([\s\S]*?)\n?```$/.exec(t);
  if (fence) t = fence[1]!.trim();
  t = t.replace(/^(here(?:'s| is) (?:a|an|the|your)[^\n]*:)\s*\n+/i, '');
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith('“') && t.endsWith('”')))) {
    const inner = t.slice(1, -1);
    if (!inner.includes('"') && !inner.includes('“')) t = inner.trim();
  }
  return t;
}

/** A thread answer split into its parts (lines of `---`; numbering like `1/5` left as written). */
export function splitThread(text: string, maxItems: number = ASSIST_LIMITS.maxThreadItems): string[] {
  const parts = cleanAnswer(text)
    .split(/^\s*-{3,}\s*$/m)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  return parts.slice(0, maxItems);
}

/** Hashtags in an answer: each `#word` (letters, digits, `_`), or bare words made into one; unique, at most `count`. */
export function parseHashtags(text: string, count: number): string[] {
  const found = cleanAnswer(text).match(/#[\p{L}\p{N}_]+/gu) ?? cleanAnswer(text).split(/[\s,]+/).map((w) => `#${w.replace(/[^\p{L}\p{N}_]/gu, '')}`);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const tag of found) {
    if (tag.length < 2 || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    out.push(tag);
    if (out.length === count) break;
  }
  return out;
}
