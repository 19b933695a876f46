import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { tokenOf } from '../sandbox/ids.js';
import { startTiktokSimulator, TIKTOK_API_ORIGIN, TIKTOK_UPLOAD_ORIGIN, TIKTOK_WWW_ORIGIN } from './tiktok.simulator.js';

/** The settings of a public direct post with every switch allowed. */
const DIRECT_POST = {
  privacy_level: 'PUBLIC_TO_EVERYONE',
  duet: false,
  stitch: false,
  comment: true,
  autoAddMusic: 'no',
  brand_content_toggle: false,
  brand_organic_toggle: false,
  content_posting_method: 'DIRECT_POST',
};

/**
 * TikTok in the sandbox: the audited app (its client key is the sandbox client id), which may
 * pull pictures from the service's public URL (`mediaOrigins`, a verified prefix); a public
 * creator per account approving its own consent. The feed is the account's posts (ids as TikTok
 * gives them publicly), the media TikTok received in order.
 */
export default defineSandboxKit({
  origins: [TIKTOK_WWW_ORIGIN, TIKTOK_API_ORIGIN, TIKTOK_UPLOAD_ORIGIN],
  app: SANDBOX_APPS.tiktok,
  example: { settings: DIRECT_POST, media: 'video' },
  async start(ctx) {
    const sim = await startTiktokSimulator({ processingPolls: 1, mediaOrigins: new Map(Object.entries(ctx.mediaOrigins)) });
    sim.addApp({ clientKey: SANDBOX_APPS.tiktok.clientId, clientSecret: SANDBOX_APPS.tiktok.clientSecret, audited: true, verifiedPrefixes: Object.keys(ctx.mediaOrigins).map((o) => `${o}/`) });
    return sim;
  },
  addAccount(sim, account) {
    const openId = `-000${tokenOf(account.key, 12, 'tiktok')}`;
    if (!sim.users.has(openId)) {
      sim.addUser({ openId, username: account.handle, displayName: account.name, stats: { follower_count: 120, following_count: 40, likes_count: 300, video_count: 0 } });
    }
    return { kind: 'oauth', approve: () => sim.approveAs(openId) };
  },
  feed(sim, internalId) {
    return sim.posts
      .filter((p) => p.openId === internalId)
      .map((p) => ({
        id: p.id,
        text: (p.kind === 'video' ? p.caption : p.description) ?? '',
        ...(p.kind === 'photo' && p.title ? { title: p.title } : {}),
        createdAt: new Date(p.createTime * 1000).toISOString(),
        media: p.media.map((m) => ({ kind: m.mimeType.startsWith('video/') ? ('video' as const) : ('image' as const), sha256: m.sha256, mimeType: m.mimeType })),
      }));
  },
  fault(sim, fault) {
    switch (fault) {
      case 'revoked':
        // TikTok answers a revoked grant's access token as an expired one: the refresh is refused too.
        sim.inject({ path: /^\/v2\/oauth\/token\//, status: 400, body: { error: 'invalid_grant', error_description: 'Refresh token is invalid or expired.', log_id: 'sandbox' } });
        return sim.injectKind('revoked');
      case 'rate_limited':
        return sim.injectKind('rate_limited');
      case 'media_refused':
        return sim.inject({
          path: /^\/v2\/post\/publish\//,
          status: 400,
          body: { data: {}, error: { code: 'file_format_check_failed', message: 'The file format is not supported.', log_id: 'sandbox' } },
        });
      case 'duplicate':
        return sim.injectKind('rejected');
    }
  },
});
