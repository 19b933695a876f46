import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { tokenOf } from '../sandbox/ids.js';
import { startTumblrSimulator, TUMBLR_API_ORIGIN, TUMBLR_WWW_ORIGIN } from './tumblr.simulator.js';

/**
 * Tumblr in the sandbox: the OAuth 2 app (any redirect URI), a user per account approving its own
 * consent, with one primary blog named after its handle (the channel). The feed is the blog's
 * posts: the text of their NPF text blocks, the files Tumblr received in block order.
 */
export default defineSandboxKit({
  origins: [TUMBLR_WWW_ORIGIN, TUMBLR_API_ORIGIN],
  app: SANDBOX_APPS.tumblr,
  example: { settings: { state: 'published', tags: 'tidings,sandbox' }, media: 'image' },
  async start() {
    const sim = await startTumblrSimulator();
    sim.addApp(SANDBOX_APPS.tumblr);
    return sim;
  },
  addAccount(sim, account) {
    const name = account.handle;
    if (!sim.users.has(name)) sim.addUser({ name, blogs: [{ uuid: `t:${tokenOf(account.key, 22, 'tumblr-blog')}`, name, title: account.name, primary: true }] });
    return { kind: 'oauth', approve: () => sim.approveAs(name) };
  },
  feed(sim, internalId) {
    return sim.posts
      .filter((p) => p.blogUuid === internalId)
      .map((p, i) => ({ p, i }))
      .sort((a, b) => a.p.createdAt - b.p.createdAt || a.i - b.i)
      .map(({ p }) => ({
        id: p.id,
        text: p.content
          .filter((b) => b.type === 'text')
          .map((b) => String(b.text))
          .join('\n'),
        createdAt: new Date(p.createdAt).toISOString(),
        media: p.files.map((f) => ({ kind: f.contentType.startsWith('video/') ? ('video' as const) : ('image' as const), sha256: f.sha256, mimeType: f.contentType })),
        metrics: { notes: p.noteCount },
      }));
  },
  fault(sim, fault) {
    switch (fault) {
      case 'revoked':
        // Tumblr answers a revoked grant's access token as an expired one: the refresh is refused too.
        sim.inject({ path: /^\/v2\/oauth2\/token/, status: 400, body: { error: 'invalid_grant', error_description: 'The refresh token is invalid' } });
        return sim.injectKind('revoked');
      case 'rate_limited':
        return sim.injectKind('rate_limited');
      case 'media_refused':
      case 'duplicate':
        return sim.injectKind('rejected');
    }
  },
});
