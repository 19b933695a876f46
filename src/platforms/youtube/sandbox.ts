import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId, tokenOf } from '../sandbox/ids.js';
import { GOOGLE_ORIGINS, startYoutubeSimulator } from './youtube.simulator.js';

/** YouTube in the sandbox: the Google OAuth client, a Google user per account owning one channel named after it, videos and comments as YouTube keeps them. */
export default defineSandboxKit({
  origins: [...GOOGLE_ORIGINS],
  app: SANDBOX_APPS.youtube,
  example: { settings: { title: 'Hello from the sandbox', type: 'public' }, media: 'video' },
  async start() {
    const sim = await startYoutubeSimulator({ processingPolls: 1 });
    sim.addApp(SANDBOX_APPS.youtube);
    return sim;
  },
  addAccount(sim, account) {
    const sub = numericId(account.key, 21, 'google');
    const channelId = `UC${tokenOf(account.key, 22, 'youtube-channel')}`;
    sim.addUser({ sub, name: account.name, email: `${account.handle}@sandbox.invalid` });
    if (!sim.channels.has(channelId)) sim.addChannel({ id: channelId, owner: sub, title: account.name, customUrl: `@${account.handle}`, subscriberCount: 120 });
    return { kind: 'oauth', approve: () => sim.approveAs(sub, channelId) };
  },
  feed(sim, internalId) {
    const videos = sim.videos
      .filter((v) => v.channelId === internalId && v.uploadStatus !== 'deleted')
      .map((v) => ({
        id: v.id,
        title: v.title,
        text: v.description,
        createdAt: v.publishedAt,
        media: [{ kind: 'video' as const, sha256: v.sha256, mimeType: v.mimeType }],
        metrics: { ...v.statistics },
      }));
    const comments = sim.comments
      .filter((c) => c.channelId === internalId)
      .map((c) => ({ id: c.id, text: c.text, replyTo: c.videoId, createdAt: c.publishedAt, media: [] }));
    return [...videos, ...comments].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  },
  fault(sim, fault) {
    switch (fault) {
      case 'revoked':
        // Google answers a revoked grant's access token as an expired one: the refresh is refused too.
        sim.inject({ path: /^\/token/, status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } });
        return sim.injectKind('revoked');
      case 'rate_limited':
        return sim.injectKind('rate_limited');
      case 'media_refused':
      case 'duplicate':
        return sim.injectKind('rejected');
    }
  },
});
