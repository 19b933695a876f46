import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit, type SandboxFeedItem } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { FACEBOOK_ORIGINS, startFacebookSimulator, type FacebookSimulator } from './facebook.simulator.js';

/** What a Page published, as the Meta simulator keeps it: posts (pictures, videos), reels, stories and the Page's own comments. */
function pageFeed(sim: FacebookSimulator, pageId: string): SandboxFeedItem[] {
  const items: (SandboxFeedItem & { at: number })[] = [];
  for (const p of sim.feed.filter((f) => f.pageId === pageId)) {
    const video = p.videoId ? sim.videos.get(p.videoId) : undefined;
    const media = p.kind === 'video'
      ? [{ kind: 'video' as const, sha256: video?.sha256 ?? p.mediaSha256[0], mimeType: 'video/mp4' }]
      : p.photoIds.map((id) => {
          const photo = sim.photos.get(id);
          return { kind: 'image' as const, sha256: photo?.sha256, mimeType: photo?.mimeType };
        });
    // A page video is named by its video id (what the adapter returns), other posts by their post id.
    items.push({ id: p.kind === 'video' && p.videoId ? p.videoId : p.id, text: p.message, media, createdAt: new Date(p.createdAt).toISOString(), at: p.createdAt });
  }
  for (const v of sim.videos.values()) {
    if (v.pageId !== pageId || v.flavor !== 'reel' || !v.published) continue;
    items.push({ id: v.id, text: v.description ?? '', media: [{ kind: 'video', sha256: v.sha256, mimeType: 'video/mp4' }], createdAt: new Date(v.createdAt).toISOString(), at: v.createdAt });
  }
  for (const s of sim.stories.filter((x) => x.pageId === pageId)) {
    items.push({ id: s.postId, text: '', media: [{ kind: s.mediaType === 'video' ? 'video' : 'image', sha256: s.sha256 }], createdAt: new Date(s.createdAt).toISOString(), at: s.createdAt });
  }
  for (const c of sim.comments.filter((x) => x.from === pageId)) {
    items.push({ id: c.id, text: c.message, replyTo: c.parentId, media: [], createdAt: new Date(c.createdAt).toISOString(), at: c.createdAt });
  }
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => a.item.at - b.item.at || a.i - b.i)
    .map(({ item: { at: _at, ...item } }) => item);
}

/** Facebook Pages in the sandbox: the Facebook Login app, a user per account managing one Page named after it. */
export default defineSandboxKit({
  origins: [...FACEBOOK_ORIGINS],
  app: SANDBOX_APPS.facebook,
  example: { media: 'image' },
  async start(ctx) {
    const sim = await startFacebookSimulator({ mediaOrigins: ctx.mediaOrigins, facebookVideoPolls: 1 });
    sim.addApp({ ...SANDBOX_APPS.facebook, login: 'facebook' });
    return sim;
  },
  addAccount(sim, account) {
    const userId = numericId(account.key, 17, 'facebook-user');
    const pageId = numericId(account.key, 15, 'facebook-page');
    sim.addUser({ id: userId, name: account.name });
    sim.addPage({ id: pageId, name: account.name, username: account.handle, managers: [userId] });
    return { kind: 'oauth', approve: () => sim.approveAs(userId) };
  },
  feed: pageFeed,
});
