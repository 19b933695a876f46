import { z } from 'zod';
import { IMAGE_TYPES, MiB, UrlOrPostPlaceholder, WordSearchDataSchema } from '../common/schemas.js';
import { defineMetadata, mediaRules } from '../common/define-metadata.js';

/** A link flair chosen among the subreddit's flairs (the `restrictions` tool lists them). */
const RedditFlairSchema = z.object({ id: z.string().min(1), name: z.string() });

/** One target subreddit with its own title, kind, URL and flair. */
const RedditSubredditValueSchema = z
  .object({
    subreddit: z.string().min(2).describe('subreddit, e.g. /r/typescript'),
    title: z.string().min(2),
    // link, self, image, video, videogif; "media" is also understood by the media check.
    type: z.string().min(2),
    url: z.string().optional(),
    is_flair_required: z.boolean(),
    flair: RedditFlairSchema.nullish(),
  })
  .superRefine((v, ctx) => {
    if (v.is_flair_required && !v.flair) {
      ctx.addIssue({ code: 'custom', path: ['flair'], message: 'A flair is required in this subreddit' });
    }
    // A link post needs a URL, unless it points at another post of the group (`(post:…)`).
    if (v.type === 'link' && !v.url?.includes('(post:') && !UrlOrPostPlaceholder.safeParse(v.url).success) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'A valid URL is required for a link post' });
    }
  });

/** Reddit post settings (reference RedditSettingsDto): one entry per subreddit to post to. */
export const RedditSettingsSchema = z.object({
  subreddit: z.array(z.object({ value: RedditSubredditValueSchema })).min(1),
});

export const redditMetadata = defineMetadata({
  identifier: 'reddit',
  displayName: 'Reddit',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://www.reddit.com/prefs/apps',
    app: 'an app of type "web app"',
  },
  oauth: {
    authorizeUrl: 'https://www.reddit.com/api/v1/authorize',
    tokenUrl: 'https://www.reddit.com/api/v1/access_token',
    // `history` lets us read the user's own submissions: image/video posts come back without an
    // id and are found there, and so are recent posts when a publish must be reconciled.
    scopes: ['read', 'identity', 'submit', 'flair', 'history'],
    scopeSeparator: ' ',
    pkce: false,
    refresh: true,
  },
  text: { maxLength: 10_000, counting: 'characters' },
  // An image or video post carries exactly one item; comments are text only.
  media: mediaRules({
    image: { maxCount: 1, mimeTypes: IMAGE_TYPES, maxBytes: 20 * MiB },
    video: { maxCount: 1, mimeTypes: ['video/mp4'], maxBytes: 1024 * MiB, maxDurationSeconds: 15 * 60 },
  }),
  thread: { supported: true, kind: 'comment' },
  // Image/video submissions often come back without a post id; the post shows up later.
  asyncProcessing: true,
  concurrency: { perPlatform: 2 },
  settings: RedditSettingsSchema,
  tools: [
    { methodName: 'subreddits', description: 'Search subreddits matching a word', dataSchema: WordSearchDataSchema },
    {
      methodName: 'restrictions',
      description: 'Posting rules and link flairs of a subreddit',
      dataSchema: z.object({ subreddit: z.string() }),
    },
  ],
});
