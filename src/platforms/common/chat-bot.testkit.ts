import { connectViaOAuth } from '../../../test/platform-contract.js';
import type { OperationContext, PlatformAdapter } from '../platform.js';
import { withSimulator, type Closable, type OriginMap, type TestCtx } from './platform.testkit.js';

/**
 * What the Discord and Slack test kits share: a bot installed by OAuth into a simulated server or
 * workspace, media answering `bytes of <id>`, and a way to connect an adapter inside the test.
 */

/** `openMedia` answering `bytes of <media id>` with the media's type. */
export const bytesOfId: OperationContext['openMedia'] = (m) => Promise.resolve(new Blob([Buffer.from(`bytes of ${m.id}`)], { type: m.mimeType }));

/** Connects `adapter` through OAuth against the simulator and gives the context with the stored credentials. */
export type ConnectAs = (adapter: PlatformAdapter) => Promise<OperationContext>;

/** Runs `fn` against a fresh simulator with `bytesOfId` media and a `connectAs` for any adapter. */
export function withBotSimulator<S extends Closable & { origin: string }, T>(
  start: () => Promise<S>,
  origins: (sim: S) => OriginMap,
  rewriteFor: (sim: S) => (url: string) => string,
  fn: (sim: S, ctx: TestCtx, connectAs: ConnectAs) => Promise<T>,
): Promise<T> {
  return withSimulator({ start, origins, openMedia: bytesOfId }, (sim, ctx) =>
    fn(sim, ctx, async (adapter) => ({ ...ctx, credentials: (await connectViaOAuth(adapter, ctx, rewriteFor(sim))).credentials })),
  );
}
