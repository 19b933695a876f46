import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';
import { defineSandboxKit } from '../sandbox/kit.js';
import { hexId } from '../sandbox/ids.js';
import { startNostrRelay, type NostrRelaySimulator } from './nostr.simulator.js';

/** The sandbox's relay: a fixed wss:// name answered by the relay simulator on loopback. */
const RELAY = 'wss://relay.sandbox.invalid';

const kindOf = (mimeType: string | undefined) =>
  mimeType?.startsWith('image/') ? ('image' as const) : mimeType?.startsWith('video/') ? ('video' as const) : mimeType === 'application/pdf' ? ('document' as const) : ('other' as const);

/** Nostr in the sandbox: a secret key per account (its kind-0 profile on the relay carries the account's name), notes as the relay keeps them. */
export default defineSandboxKit<NostrRelaySimulator>({
  origins: [RELAY],
  example: { media: 'image' },
  start: (ctx) => startNostrRelay({ name: 'Tidings sandbox relay', mediaOrigins: ctx.mediaOrigins }),
  addAccount(sim, account) {
    const secret = hexId(account.key, 64, 'nostr');
    const sk = Buffer.from(secret, 'hex');
    const pubkey = getPublicKey(sk);
    const known = [...sim.events.values()].some((s) => s.event.kind === 0 && s.event.pubkey === pubkey);
    if (!known) {
      const profile = { name: account.handle, display_name: account.name };
      sim.seed(finalizeEvent({ kind: 0, created_at: Math.floor(Date.now() / 1000), tags: [], content: JSON.stringify(profile) }, sk));
    }
    return { kind: 'credentials', body: { privateKey: secret, relays: [RELAY] } };
  },
  socketTarget: (sim) => sim.url,
  feed(sim, internalId) {
    return [...sim.events.values()]
      .filter((s) => s.event.kind === 1 && s.event.pubkey === internalId)
      .map((s) => {
        const replyTo = sim.lookup(s.event.id)?.replyTo;
        const imeta = s.event.tags.filter((t) => t[0] === 'imeta');
        return {
          id: s.event.id,
          text: s.event.content,
          createdAt: new Date(s.event.created_at * 1000).toISOString(),
          ...(replyTo ? { replyTo } : {}),
          media: imeta.map((t, i) => {
            const mimeType = t.find((v) => v.startsWith('m '))?.slice(2);
            const sha256 = s.mediaSha256[i];
            return { kind: kindOf(mimeType), ...(sha256 && !sha256.startsWith('unreachable') ? { sha256 } : {}), ...(mimeType ? { mimeType } : {}) };
          }),
        };
      });
  },
  fault(sim, fault) {
    switch (fault) {
      case 'revoked':
        return sim.injectKind('revoked');
      case 'rate_limited':
        return sim.injectKind('rate_limited');
      case 'media_refused':
        return sim.refuse('blocked: media from this host is not allowed here');
      case 'duplicate':
        return sim.refuse('duplicate: already have this event');
    }
  },
});
