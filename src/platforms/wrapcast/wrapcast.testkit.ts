import { startMediaHost } from '../common/media-host.testkit.js';
import { noMedia, simulatorOrigins, withServer, withSimulator, type TestCtx } from '../common/platform.testkit.js';
import type { ConnectedAccount, PlatformAdapter, PublishItem } from '../platform.js';
import { NEYNAR_API_ORIGIN, NEYNAR_APP_ORIGIN, startWrapcastSimulator, type WrapcastSimulator, type WrapcastSimulatorOptions } from './wrapcast.simulator.js';

/** Shared fixtures of the Farcaster tests: a Neynar app, users, channels, a media host. */

export const NEYNAR_APP = { clientId: '00b75745-1111-4222-8333-444455556666', apiKey: 'NEYNAR_API_KEY_ACME_0001', authorizedOrigins: ['https://tidings.example', 'http://localhost:3000'] };
export const ALICE = { fid: 6131, username: 'alice', display_name: 'Alice Caster', pfp_url: 'https://i.imgur.com/alice.png' };
export const PRO = { fid: 7777, username: 'prolix', display_name: 'Pro Lix', pro: true };

export async function wrapcastSimulator(opts: WrapcastSimulatorOptions = {}): Promise<WrapcastSimulator> {
  const sim = await startWrapcastSimulator(opts);
  sim.apps.set(NEYNAR_APP.clientId, { ...NEYNAR_APP, authorizedOrigins: [...NEYNAR_APP.authorizedOrigins] });
  sim.users.set(ALICE.fid, { ...ALICE });
  sim.users.set(PRO.fid, { ...PRO });
  sim.channels.set('dev', { id: 'dev', name: 'Developers', description: 'Builders on Farcaster', follower_count: 1200 });
  sim.channels.set('devops', { id: 'devops', name: 'DevOps', description: 'Pipelines', follower_count: 300 });
  sim.channels.set('memes', { id: 'memes', name: 'Memes', description: 'Fun', follower_count: 9000 });
  return sim;
}

export const { originsFor, platformOriginsFor } = simulatorOrigins([NEYNAR_API_ORIGIN, NEYNAR_APP_ORIGIN]);

export { PNG as picture, sha, startMediaHost } from '../common/media-host.testkit.js';

export const MEDIA_ORIGIN = 'https://tidings.example';
export function image(id: string): PublishItem['media'][number] {
  return { id, path: `${MEDIA_ORIGIN}/media/${id}.png`, type: 'image', mimeType: 'image/png', size: 24, width: 1, height: 1 };
}

export type { TestCtx };

/**
 * Signs in with Neynar the way a browser would: opens the login URL, follows the redirect back,
 * and hands the adapter what the callback would (`signer_uuid` as the code, the rest as params).
 */
export async function signIn(adapter: PlatformAdapter, ctx: TestCtx, rewrite: (url: string) => string, redirectUri = 'http://localhost:3000/integrations/social/wrapcast/callback'): Promise<ConnectedAccount> {
  const state = `state-${Math.random().toString(36).slice(2)}`;
  const begun = await adapter.beginConnect!({ state, redirectUri }, ctx);
  const res = await fetch(rewrite(begun.url), { redirect: 'manual' });
  const location = res.headers.get('location');
  if (!location) throw new Error(`Sign in with Neynar did not redirect (${res.status}): ${await res.text()}`);
  const back = new URL(location);
  if (`${back.origin}${back.pathname}` !== redirectUri || back.searchParams.get('state') !== state) throw new Error(`came back to ${location}`);
  const params = Object.fromEntries([...back.searchParams].filter(([k]) => k !== 'state' && k !== 'signer_uuid'));
  return adapter.completeConnect!({ code: back.searchParams.get('signer_uuid')!, redirectUri, callbackParams: params }, ctx);
}

/** Runs `fn` against a fresh simulator and media host, with an HTTP client mapped to them. */
export const withWrapcast = <T>(files: Map<string, Buffer>, fn: (sim: WrapcastSimulator, ctx: TestCtx, rewrite: (u: string) => string) => Promise<T>): Promise<T> =>
  withServer(
    () => startMediaHost(files),
    (host) =>
      withSimulator(
        { start: () => wrapcastSimulator({ mediaOrigins: { [MEDIA_ORIGIN]: host.origin } }), origins: originsFor, openMedia: noMedia('Farcaster embeds media by URL') },
        (sim, ctx, http) => fn(sim, ctx, (u) => http.rewriteUrl(u)),
      ),
  );
