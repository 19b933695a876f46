import { createHash } from 'node:crypto';
import { simulatorOrigins, withSimulator, type TestCtx } from '../common/platform.testkit.js';
import type { PublishItem } from '../platform.js';
import { startMastodonSimulator, type MastodonSimulator, type MastodonSimulatorOptions } from './mastodon.simulator.js';

/** Shared fixtures of the Mastodon tests: an instance with one account, a picture, a simulator wired to an HTTP client. */

export const INSTANCE = 'https://mastodon.example';
export const REDIRECT = 'http://localhost:3000/integrations/social/mastodon/callback';

// The same bytes as the contract's 1×1 PNG.
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);
export const PNG_SHA = createHash('sha256').update(PNG).digest('hex');
export const image: PublishItem['media'][number] = { id: 'media-1', path: 'uploads/2026/pic.png', type: 'image', mimeType: 'image/png', size: PNG.length, alt: 'A single pixel' };

/** The instance with Alice's account. */
export async function mastodonSimulator(options?: MastodonSimulatorOptions) {
  const sim = await startMastodonSimulator(options);
  sim.addAccount({ username: 'alice', display_name: 'Alice Example', followers_count: 42, following_count: 7 });
  return sim;
}

export const { originsFor, rewriteFor, platformOriginsFor } = simulatorOrigins([INSTANCE]);
export { withCreds, type TestCtx } from '../common/platform.testkit.js';

/** The contract's `lookup`: a status as the contract compares it. */
export function lookupIn(sim: MastodonSimulator) {
  return (id: string) => {
    const s = sim.statuses.find((x) => x.id === id);
    return s && { text: s.text, replyTo: s.inReplyToId ?? undefined, mediaSha256: s.mediaSha256 };
  };
}

/** Runs `fn` against a fresh instance with an HTTP client mapped to it; `openMedia` answers the PNG. */
export const withMastodon = <T>(fn: (sim: MastodonSimulator, ctx: TestCtx) => Promise<T>, options?: MastodonSimulatorOptions): Promise<T> =>
  withSimulator({ start: () => mastodonSimulator(options), origins: originsFor, openMedia: () => Promise.resolve(new Blob([PNG], { type: 'image/png' })) }, fn);
