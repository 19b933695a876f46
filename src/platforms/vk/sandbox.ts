import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit, type SandboxFeedItem } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { startVkSimulator, VK_API_ORIGIN, VK_ID_ORIGIN, VK_PHOTO_UPLOAD_ORIGIN, VK_VIDEO_UPLOAD_ORIGIN, type VkSimulator } from './vk.simulator.js';

/** A sandbox account's community (the one its communities tool lists, administered by it). */
const communityOf = (key: string) => numericId(key, 9, 'vk-community');

/**
 * VK in the sandbox: the VK ID app (PKCE, device ids, any redirect URI), a user per account
 * approving its own consent and administering one community named after it. The feed is what
 * was posted on the user's wall and the community's, and the comments (thread items) made there
 * by the user or as the community, with the photos and videos VK received.
 */
export default defineSandboxKit<VkSimulator>({
  origins: [VK_ID_ORIGIN, VK_API_ORIGIN, VK_PHOTO_UPLOAD_ORIGIN, VK_VIDEO_UPLOAD_ORIGIN],
  app: SANDBOX_APPS.vk,
  example: { settings: {}, media: 'image' },
  async start() {
    const sim = await startVkSimulator({ requireDeviceId: true });
    sim.addApp({ ...SANDBOX_APPS.vk });
    return sim;
  },
  addAccount(sim, account) {
    const id = numericId(account.key, 9, 'vk-user');
    const [first, ...rest] = account.name.split(' ');
    if (!sim.users.has(id)) sim.addUser({ id, first_name: first ?? account.name, last_name: rest.join(' ') });
    const community = communityOf(account.key);
    if (!sim.groups.has(community)) sim.addGroup({ id: community, name: account.name, screen_name: `${account.handle}_club`, managers: { [id]: 'admin' } });
    return { kind: 'oauth', approve: () => sim.approveAs(id) };
  },
  feed(sim, internalId) {
    const managed = [...sim.groups.values()].filter((g) => g.managers[internalId] === 'admin' || g.managers[internalId] === 'editor').map((g) => `-${g.id}`);
    const walls = new Set([internalId, ...managed]);
    const mediaOf = (attachments: string[]): SandboxFeedItem['media'] =>
      attachments.flatMap((a): SandboxFeedItem['media'] => {
        const m = /^(photo|video)(-?\d+_\d+)$/.exec(a);
        if (!m) return [];
        const sha256 = m[1] === 'photo' ? sim.photos.get(m[2]!)?.sha256 : sim.videos.get(m[2]!)?.sha256;
        return [{ kind: m[1] === 'photo' ? 'image' : 'video', ...(sha256 ? { sha256 } : {}) }];
      });
    const items: (SandboxFeedItem & { at: number; order: number })[] = [];
    sim.posts.forEach((p, i) => {
      if (!walls.has(p.ownerId)) return;
      items.push({
        id: `${p.ownerId}_${p.id}`,
        text: p.text,
        media: mediaOf(p.attachments),
        createdAt: new Date(p.date * 1000).toISOString(),
        metrics: { views: p.views, likes: p.likes, reposts: p.reposts },
        at: p.date,
        order: i,
      });
    });
    sim.comments.forEach((c, i) => {
      if (!walls.has(c.ownerId) || !walls.has(c.fromId)) return;
      items.push({
        id: `${c.ownerId}_${c.postId}_${c.id}`,
        text: c.text,
        replyTo: c.replyToComment ? `${c.ownerId}_${c.postId}_${c.replyToComment}` : `${c.ownerId}_${c.postId}`,
        media: mediaOf(c.attachments),
        createdAt: new Date(c.date * 1000).toISOString(),
        at: c.date,
        order: sim.posts.length + i,
      });
    });
    return items.sort((a, b) => a.at - b.at || a.order - b.order).map(({ at: _at, order: _order, ...item }) => item);
  },
  fault(sim, fault) {
    switch (fault) {
      case 'revoked':
        // VK answers the revoked grant's token with error 5, and refuses the refresh.
        sim.inject({ path: /^\/oauth2\/auth/, status: 400, body: { error: 'invalid_grant', error_description: 'refresh_token is invalid or already used' } });
        return sim.injectKind('revoked');
      case 'rate_limited':
        return sim.injectKind('rate_limited');
      case 'media_refused':
        return sim.inject({ path: /^\/method\/photos\.saveWallPhoto/, status: 200, body: { error: { error_code: 121, error_msg: 'Invalid hash', request_params: [{ key: 'v', value: '5.199' }] } } });
      case 'duplicate':
        return sim.injectKind('rejected');
    }
  },
});
