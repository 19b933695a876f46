import { mediaFrom, simulatorOrigins, withSimulator, type TestCtx as BaseTestCtx } from '../common/platform.testkit.js';
import type { ConnectedAccount, PlatformAdapter, PublishItem } from '../platform.js';
import { startLemmySimulator, type LemmySimulator } from './lemmy.simulator.js';

/** Shared fixtures of the Lemmy tests: an instance with an account and communities, a client mapped to it. */

export const INSTANCE = 'https://lemmy.example';
export const ALICE = { id: 7, name: 'alice', displayName: 'Alice Tidings', email: 'alice@example.com', password: 'correct horse battery', avatar: 'https://lemmy.example/pictrs/image/alice.png' };
export const BOB_2FA = { id: 8, name: 'bob', email: 'bob@example.com', password: 'bob pass', totp: '123456' };
export const SELFHOSTED = { id: 11, name: 'selfhosted', title: 'Self-hosted', subscribers: 5000 };
export const OPENSOURCE = { id: 12, name: 'opensource', title: 'Open Source', subscribers: 9000 };
export const ANNOUNCE = { id: 13, name: 'announcements', title: 'Announcements', postingRestrictedToMods: true, moderators: [1] };
export const FEDERATED = { id: 14, name: 'linux', title: 'Linux', host: 'lemmy.ml', subscribers: 20000 };

export const community = (c: { id: number; name: string }, title = 'Tidings is out', url?: string) => ({ value: { subreddit: c.name, id: String(c.id), title, ...(url ? { url } : {}) } });

export async function lemmySimulator() {
  const sim = await startLemmySimulator({ publicOrigin: INSTANCE });
  sim.addPerson(ALICE);
  sim.addPerson(BOB_2FA);
  for (const c of [SELFHOSTED, OPENSOURCE, ANNOUNCE, FEDERATED]) sim.addCommunity(c);
  return sim;
}

export const { originsFor, platformOriginsFor } = simulatorOrigins([INSTANCE]);
export { sha } from '../common/media-host.testkit.js';
export { published } from '../common/platform.testkit.js';

export type TestCtx = BaseTestCtx & { media: Map<string, Blob> };

/** Runs `fn` against a fresh instance with an HTTP client mapped to it (plus any extra origins); `ctx.media` holds what `openMedia` answers. */
export function withLemmy<T>(fn: (sim: LemmySimulator, ctx: TestCtx) => Promise<T>, extraOrigins: [string, string][] = []): Promise<T> {
  const media = new Map<string, Blob>();
  return withSimulator({ start: lemmySimulator, origins: (sim) => new Map([...originsFor(sim), ...extraOrigins]), openMedia: mediaFrom(media) }, (sim, ctx) => fn(sim, { media, ...ctx }));
}

export function image(id: string, alt?: string): PublishItem['media'][number] {
  return { id, path: `https://tidings.example/media/2026/01/${id}.png`, type: 'image', mimeType: 'image/png', size: 70, width: 1, height: 1, alt: alt ?? null };
}

export const publishWith = (
  a: PlatformAdapter,
  ctx: TestCtx,
  account: ConnectedAccount | { credentials: Record<string, unknown> },
  content: string,
  extra: { media?: PublishItem['media']; settings?: Record<string, unknown>; replyTo?: { id: string; rootId: string } } = {},
) => a.publish({ item: { content, media: extra.media ?? [] }, settings: extra.settings ?? { subreddit: [community(SELFHOSTED)] }, replyTo: extra.replyTo, idempotencyKey: content }, { ...ctx, credentials: account.credentials });
