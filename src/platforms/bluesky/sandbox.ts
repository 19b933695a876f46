import { defineSandboxKit } from '../sandbox/kit.js';
import { hexId, tokenOf } from '../sandbox/ids.js';
import { BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO, startBlueskySimulator, type StoredBlob } from './bluesky.simulator.js';

const kindOf = (mimeType: string) => (mimeType.startsWith('video/') ? ('video' as const) : mimeType.startsWith('image/') ? ('image' as const) : ('other' as const));
const mediaOf = (blobs: StoredBlob[]) => blobs.map((b) => ({ kind: kindOf(b.mimeType), sha256: b.sha256, mimeType: b.mimeType }));

/** Bluesky in the sandbox: an account per sandbox account on the entryway and its PDS, logged in with an app password. */
export default defineSandboxKit({
  origins: [BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO],
  example: { media: 'image' },
  async start() {
    const sim = await startBlueskySimulator({ appViewLagMs: 0 });
    sim.configureVideo({ polls: 1 });
    return sim;
  },
  addAccount(sim, account) {
    const handle = `${account.handle}.bsky.social`;
    const did = `did:plc:${hexId(account.key, 24, 'bluesky')}`;
    const password = tokenOf(account.key, 16, 'bluesky').toLowerCase().replace(/(.{4})(?!$)/g, '$1-');
    sim.addAccount({ handle, did, password, displayName: account.name, followers: 12, follows: 3 });
    return { kind: 'credentials', body: { identifier: handle, password } };
  },
  feed(sim, internalId) {
    return sim.records
      .filter((r) => r.did === internalId)
      .map((r) => ({
        id: r.uri,
        text: r.text,
        createdAt: r.createdAt,
        ...(r.reply ? { replyTo: r.reply.parent.uri } : {}),
        media: mediaOf(r.media),
        metrics: { likes: r.likeCount, reposts: r.repostCount, quotes: r.quoteCount },
      }));
  },
  fault(sim, fault) {
    if (fault !== 'revoked') return sim.injectKind(fault === 'rate_limited' ? 'rate_limited' : 'rejected');
    // The app password was revoked: the post's token is refused, then its refresh and the login with the stored password.
    sim.injectKind('revoked');
    sim.inject({ path: /com\.atproto\.server\.refreshSession/, status: 400, body: { error: 'ExpiredToken', message: 'Token has been revoked' } });
    sim.inject({ path: /com\.atproto\.server\.createSession/, status: 401, body: { error: 'AuthenticationRequired', message: 'Invalid identifier or password' } });
  },
});
