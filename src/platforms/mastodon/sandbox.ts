import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { startMastodonSimulator } from './mastodon.simulator.js';

/** The sandbox's Mastodon instance (a fixed fake host: the adapter registers its app there as on any instance). */
const INSTANCE = 'https://mastodon.sandbox.invalid';

/** Mastodon in the sandbox: one instance, an account per sandbox account approving its own consent, statuses as the instance keeps them. */
export default defineSandboxKit({
  origins: [INSTANCE],
  example: { settings: {}, media: 'image' },
  start: () => startMastodonSimulator({ publicUrl: INSTANCE, mediaProcessingPolls: 1 }),
  addAccount(sim, account) {
    const id = numericId(account.key, 18, 'mastodon');
    if (!sim.accounts.has(id)) {
      sim.accounts.set(id, {
        id,
        username: account.handle,
        display_name: account.name,
        avatar: `${INSTANCE}/system/accounts/avatars/${account.handle}.png`,
        followers_count: 42,
        following_count: 7,
        created_at: new Date().toISOString(),
      });
    }
    return { kind: 'oauth', instanceUrl: INSTANCE, approve: () => sim.signIn(id) };
  },
  feed(sim, internalId) {
    return sim.statuses
      .filter((s) => s.accountId === internalId)
      .map((s) => ({
        id: s.id,
        text: s.text,
        createdAt: s.createdAt,
        ...(s.inReplyToId ? { replyTo: s.inReplyToId } : {}),
        media: s.mediaIds.map((mediaId, i) => {
          const m = sim.media.get(mediaId);
          const kind = m?.type === 'image' ? ('image' as const) : m?.type === 'video' || m?.type === 'gifv' ? ('video' as const) : ('other' as const);
          return { kind, sha256: s.mediaSha256[i] ?? m?.sha256, ...(m ? { mimeType: m.mimeType } : {}) };
        }),
        metrics: { favourites: s.favourites, reblogs: s.reblogs },
      }));
  },
});
