import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit, type SandboxFeedItem } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { FACEBOOK_ORIGINS, startInstagramSimulator, type InstagramSimulator } from './instagram.simulator.js';

/** A sandbox account's Instagram professional account id (17841…, as Instagram numbers them). */
const instagramIdOf = (key: string) => `1784${numericId(key, 13, 'instagram')}`;

/**
 * What an Instagram account published, as the Meta simulator keeps it: its media, each with the files its containers pulled, and its own
 * comments (thread items) under them.
 */
function instagramFeed(sim: InstagramSimulator, igUserId: string): SandboxFeedItem[] {
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
 * Instagram (Facebook Login) in the sandbox: the Facebook Login app, a Facebook user per account
 * managing a Page linked to an Instagram professional account named after it. Containers pull
 * their media from the service's public URL (`mediaOrigins`).
 */
export default defineSandboxKit({
  origins: [...FACEBOOK_ORIGINS],
  app: SANDBOX_APPS.instagram,
  example: { settings: { post_type: 'post' }, media: 'image' },
  async start(ctx) {
    const sim = await startInstagramSimulator({ mediaOrigins: ctx.mediaOrigins, imagePolls: 0, videoPolls: 1 });
    sim.addApp({ ...SANDBOX_APPS.instagram, login: 'facebook' });
    return sim;
  },
  addAccount(sim, account) {
    const userId = numericId(account.key, 17, 'instagram-user');
    const pageId = numericId(account.key, 15, 'instagram-page');
    const igUserId = instagramIdOf(account.key);
    sim.addUser({ id: userId, name: account.name });
    sim.addInstagramUser({ id: igUserId, username: account.handle, name: account.name, professional: true, followers: 120 });
    sim.addPage({ id: pageId, name: account.name, username: account.handle, managers: [userId], instagramId: igUserId });
    return { kind: 'oauth', approve: () => sim.approveAs(userId) };
  },
  feed: instagramFeed,
});
