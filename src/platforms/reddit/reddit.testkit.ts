import { createHash } from 'node:crypto';
import { connectViaOAuth } from '../../../test/platform-contract.js';
import { simulatorOrigins, withSimulator } from '../common/platform.testkit.js';
import type { ConnectedAccount, OperationContext, PlatformAdapter, PublishItem } from '../platform.js';
import { REDDIT_API, REDDIT_WWW } from './client.js';
import { S3_ORIGIN, startRedditSimulator, type RedditSimulator } from './reddit.simulator.js';

/** Shared fixtures of the Reddit tests: an app, a user, subreddits with their rules and flairs, media, a simulator wired to an HTTP client. */

export const APP = { clientId: 'sim-client-id', clientSecret: 'sim-client-secret' };
export const REDIRECT = 'http://localhost:3000/integrations/social/test/callback';
export const USER = { id: '8xwlg', name: 'tidings_tester' };

/** Reddit with the app (its redirect URI `redirectUri`), the user, and r/typescript, r/node (flair required), r/linksonly and the private r/typesecret. */
export async function redditSimulator(app = APP, redirectUri = REDIRECT): Promise<RedditSimulator> {
  const sim = await startRedditSimulator();
  sim.addApp({ clientId: app.clientId, secret: app.clientSecret, redirectUri });
  sim.addUser(USER);
  sim.addSubreddit({ name: 'typescript', title: 'TypeScript programming' });
  sim.addSubreddit({ name: 'node', title: 'Node.js', flairRequired: true, flairs: [{ id: 'f-show', text: 'Show-off' }, { id: 'f-help', text: 'Help' }] });
  sim.addSubreddit({ name: 'linksonly', title: 'Only links here', submission_type: 'link', allow_images: false });
  sim.addSubreddit({ name: 'typesecret', title: 'Private types', type: 'private' });
  return sim;
}

export const { originsFor, rewriteFor, platformOriginsFor } = simulatorOrigins([REDDIT_WWW, REDDIT_API, S3_ORIGIN]);

export const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082', 'hex');
export const MP4 = Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex');
export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
export const image: PublishItem['media'][number] = { id: 'img-1', path: '/uploads/2026/cat.png', type: 'image', mimeType: 'image/png', size: PNG.length };
export const video: PublishItem['media'][number] = { id: 'vid-1', path: '/uploads/2026/clip', type: 'video', mimeType: 'video/mp4', size: MP4.length };

/** One `settings.subreddit` entry: a text post to r/typescript unless `value` says otherwise. */
export const entry = (value: Record<string, unknown>) => ({ value: { subreddit: '/r/typescript', title: 'Typed schedulers', type: 'self', is_flair_required: false, ...value } });

/** The contract's `lookup`: a submission (title and text) or a comment, as the contract compares it. */
export function lookupIn(sim: RedditSimulator) {
  return (id: string) => {
    const { submission, comment } = sim.find(id);
    if (submission) return { text: `${submission.title}\n${submission.text}`, mediaSha256: submission.mediaSha256 };
    if (comment) return { text: comment.text, replyTo: comment.parent, mediaSha256: [] };
    return undefined;
  };
}

/**
 * Runs `fn` against a fresh Reddit with the user connected to `adapter` through OAuth: the
 * context with its credentials, the account, and the warnings the adapter logged. `openMedia`
 * answers the MP4 for a video and the PNG otherwise.
 */
export function withReddit<T>(adapter: PlatformAdapter, fn: (sim: RedditSimulator, ctx: OperationContext, account: ConnectedAccount, warnings: unknown[]) => Promise<T>): Promise<T> {
  const warnings: unknown[] = [];
  const openMedia: OperationContext['openMedia'] = (m) => Promise.resolve(new Blob([m.type === 'video' ? MP4 : PNG], { type: m.mimeType }));
  return withSimulator({ start: () => redditSimulator(), origins: originsFor, openMedia }, async (sim, base) => {
    const ctx = { ...base, logger: { ...base.logger, warn: (o: unknown) => void warnings.push(o) } };
    const account = await connectViaOAuth(adapter, ctx, rewriteFor(sim), { redirectUri: REDIRECT });
    return fn(sim, { ...ctx, credentials: account.credentials }, account, warnings);
  });
}
