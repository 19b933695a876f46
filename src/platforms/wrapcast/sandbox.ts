import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { NEYNAR_API_ORIGIN, NEYNAR_APP_ORIGIN, startWrapcastSimulator } from './wrapcast.simulator.js';

/**
 * Farcaster (through Neynar) in the sandbox: the Neynar app (client id, API key; the service's
 * public origin authorised), a Farcaster user per account signing in with Neynar for its own
 * signer, casts with their picture embeds fetched from the service as Neynar does, a `tidings` channel.
 */
export default defineSandboxKit({
  origins: [NEYNAR_API_ORIGIN, NEYNAR_APP_ORIGIN],
  app: SANDBOX_APPS.wrapcast,
  example: { settings: {}, media: 'image' },
  async start(ctx) {
    const sim = await startWrapcastSimulator({ mediaOrigins: ctx.mediaOrigins });
    const authorizedOrigins = Object.keys(ctx.mediaOrigins).map((o) => new URL(o).origin);
    sim.apps.set(SANDBOX_APPS.wrapcast.clientId, { clientId: SANDBOX_APPS.wrapcast.clientId, apiKey: SANDBOX_APPS.wrapcast.clientSecret, authorizedOrigins: authorizedOrigins.length > 0 ? authorizedOrigins : ['http://localhost:3000'] });
    sim.channels.set('tidings', { id: 'tidings', name: 'Tidings sandbox', description: 'Where sandbox channels cast', follower_count: 120 });
    return sim;
  },
  addAccount(sim, account) {
    const fid = Number(numericId(account.key, 7, 'wrapcast'));
    if (!sim.users.has(fid)) sim.users.set(fid, { fid, username: account.handle, display_name: account.name });
    return { kind: 'oauth', approve: () => sim.signInAs(fid) };
  },
  feed(sim, internalId) {
    return sim.casts
      .filter((c) => String(c.fid) === internalId)
      .map((c) => ({
        id: c.hash,
        text: c.text,
        createdAt: c.timestamp,
        ...(c.parentHash ? { replyTo: c.parentHash } : {}),
        media: c.embeds.map((e) => ({ kind: 'image' as const, sha256: e.sha256 })),
        metrics: { likes: c.likes, recasts: c.recasts },
      }));
  },
});
