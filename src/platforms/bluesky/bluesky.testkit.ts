import { mediaFrom, simulatorOrigins, withSimulator, type TestCtx as BaseTestCtx } from '../common/platform.testkit.js';
import { BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO, startBlueskySimulator, type BlueskySimulator } from './bluesky.simulator.js';

/** Shared fixtures of the Bluesky tests: Alice (with an app password) and Bob on the simulated hosts, a client mapped to them. */

export const ALICE = { handle: 'alice.bsky.social', did: 'did:plc:alice7xk2qlm4zv3', password: 'abcd-efgh-ijkl-mnop', displayName: 'Alice' };
export const BOB = { handle: 'bob.bsky.social', did: 'did:plc:bob5bd6ufz2a7k', password: 'bob-pass', displayName: 'Bob' };
/** Alice's connect form. */
export const LOGIN = { identifier: ALICE.handle, password: ALICE.password };

/** The entryway, Alice's PDS and the video service, all one simulator, with Alice and Bob. */
export async function blueskySimulator(): Promise<BlueskySimulator> {
  const sim = await startBlueskySimulator();
  sim.addAccount({ ...ALICE, avatar: 'https://cdn.bsky.app/img/avatar/plain/did:plc:alice7xk2qlm4zv3/bafkreiavatar@jpeg', followers: 12, follows: 3 });
  sim.addAccount(BOB);
  return sim;
}

export const { originsFor, platformOriginsFor } = simulatorOrigins([BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO]);
export { published } from '../common/platform.testkit.js';

/** The contract's `lookup`: a record as the contract compares it. */
export function lookupIn(sim: BlueskySimulator) {
  return (id: string) => {
    const r = sim.find(id);
    return r && { text: r.text, replyTo: r.reply?.parent.uri, mediaSha256: r.media.map((m) => m.sha256) };
  };
}

export type TestCtx = BaseTestCtx & { media: Map<string, Blob> };

/** Runs `fn` against a fresh simulator with an HTTP client mapped to it; `ctx.media` holds what `openMedia` answers. */
export function withBluesky<T>(fn: (sim: BlueskySimulator, ctx: TestCtx) => Promise<T>): Promise<T> {
  const media = new Map<string, Blob>();
  return withSimulator({ start: blueskySimulator, origins: originsFor, openMedia: mediaFrom(media) }, (sim, ctx) => fn(sim, { media, ...ctx }));
}
