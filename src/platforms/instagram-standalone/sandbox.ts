import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit, type SandboxFeedItem } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { INSTAGRAM_LOGIN_ORIGINS, startInstagramStandaloneSimulator, type InstagramStandaloneSimulator } from './instagram-standalone.simulator.js';

/** A sandbox account's Instagram professional account id (17841…, as Instagram numbers them). */
const instagramIdOf = (key: string) => `1784${numericId(key, 13, 'instagram')}`;

/**
 * What an Instagram account published, as the Meta simulator keeps it (the same as
 * `instagram`'s kit reads it): its media, each with the files its containers pulled, and its own
 * comments (thread items) under them.
 */
function instagramFeed(sim: InstagramStandaloneSimulator, igUserId: string): SandboxFeedItem[] {
  const items: (SandboxFeedItem & { at: number })[] = [];
  for (const m of sim.igMedia.filter((x) => x.igUserId === igUserId)) {
    const container = sim.containers.get(m.containerId);
    const parts = container?.children?.length ? container.children.map((id) => sim.containers.get(id)) : [container];
    const media = m.mediaSha256.map((sha256, i) => {
      const mimeType = parts[i]?.mimeType;
      return { kind: mimeType?.startsWith('video/') || (!mimeType && m.mediaType === 'VIDEO') ? ('video' as const) : ('image' as const), sha256, ...(mimeType ? { mimeType } : {}) };
    });
    items.push({ id: m.id, text: m.caption, media, createdAt: new Date(m.timestamp).toISOString(), at: m.timestamp });
  }
  for (const c of sim.comments.filter((x) => x.from === igUserId)) {
    items.push({ id: c.id, text: c.message, replyTo: c.parentId, media: [], createdAt: new Date(c.createdAt).toISOString(), at: c.createdAt });
  }
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => a.item.at - b.item.at || a.i - b.i)
    .map(({ item: { at: _at, ...item } }) => item);
}

/**
 * Instagram (Instagram Login) in the sandbox: the Instagram Login app, an Instagram professional
 * account per sandbox account approving its own consent. Containers pull their media from the
 * service's public URL (`mediaOrigins`).
 */
export default defineSandboxKit({
  origins: [...INSTAGRAM_LOGIN_ORIGINS],
  app: SANDBOX_APPS['instagram-standalone'],
  example: { settings: { post_type: 'post' }, media: 'image' },
  async start(ctx) {
    const sim = await startInstagramStandaloneSimulator({ mediaOrigins: ctx.mediaOrigins, imagePolls: 0, videoPolls: 1 });
    sim.addApp({ ...SANDBOX_APPS['instagram-standalone'], login: 'instagram' });
    return sim;
  },
  addAccount(sim, account) {
    const igUserId = instagramIdOf(account.key);
    sim.addInstagramUser({ id: igUserId, username: account.handle, name: account.name, professional: true, followers: 120 });
    return { kind: 'oauth', approve: () => sim.approveInstagramAs(igUserId) };
  },
  feed: instagramFeed,
});
