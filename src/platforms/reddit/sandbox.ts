import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit, type SandboxFeedItem } from '../sandbox/kit.js';
import { tokenOf } from '../sandbox/ids.js';
import { REDDIT_API, REDDIT_WWW } from './client.js';
import { S3_ORIGIN, startRedditSimulator } from './reddit.simulator.js';

/** The public subreddit every sandbox account may post to (the example's). */
const SUBREDDIT = 'tidings_sandbox';

/**
 * Reddit in the sandbox: the web app (a Reddit app has exactly one redirect URI: the service's
 * callback, built from its public origin), a user per account named after its handle (Reddit
 * names have no spaces) logged in on the authorisation page for its own consent, and
 * r/tidings_sandbox to post to. The feed is the user's submissions and comments.
 */
export default defineSandboxKit({
  origins: [REDDIT_WWW, REDDIT_API, S3_ORIGIN],
  app: SANDBOX_APPS.reddit,
  example: {
    settings: { subreddit: [{ value: { subreddit: `/r/${SUBREDDIT}`, title: 'Hello from the Tidings sandbox', type: 'media', is_flair_required: false } }] },
    media: 'image',
  },
  async start(ctx) {
    const sim = await startRedditSimulator();
    const publicOrigin = Object.keys(ctx.mediaOrigins)[0] ?? 'http://localhost:3000';
    sim.addApp({ clientId: SANDBOX_APPS.reddit.clientId, secret: SANDBOX_APPS.reddit.clientSecret, redirectUri: `${publicOrigin}/integrations/social/reddit/callback` });
    sim.addSubreddit({ name: SUBREDDIT, title: 'Tidings sandbox' });
    return sim;
  },
  addAccount(sim, account) {
    const id = tokenOf(account.key, 6, 'reddit').toLowerCase();
    if (!sim.state.users.has(id)) sim.addUser({ id, name: account.handle });
    return {
      kind: 'oauth',
      approve: () => {
        sim.state.loggedInUserId = id;
      },
    };
  },
  feed(sim, internalId) {
    const items: (SandboxFeedItem & { at: number; seq: number })[] = [];
    for (const s of sim.state.submissions.filter((x) => x.authorId === internalId)) {
      const media = s.mediaSha256.map((sha256) => {
        const mimeType = [...sim.state.media.values()].find((m) => m.sha256 === sha256)?.mimetype ?? '';
        return { kind: mimeType.startsWith('video/') ? ('video' as const) : ('image' as const), sha256, ...(mimeType ? { mimeType } : {}) };
      });
      items.push({ id: s.name, title: s.title, text: s.kind === 'self' ? s.text : s.url, media, createdAt: new Date(s.createdUtc * 1000).toISOString(), at: s.createdUtc, seq: parseInt(s.id, 36) });
    }
    for (const c of sim.state.comments.filter((x) => x.authorId === internalId)) {
      items.push({ id: c.name, text: c.text, replyTo: c.parent, media: [], createdAt: new Date(c.createdUtc * 1000).toISOString(), at: c.createdUtc, seq: parseInt(c.id, 36) });
    }
    return items.sort((a, b) => a.at - b.at || a.seq - b.seq).map(({ at: _at, seq: _seq, ...item }) => item);
  },
  fault(sim, fault) {
    switch (fault) {
      case 'revoked':
        // The access token is refused, and so is the refresh (Reddit's token errors come under HTTP 200).
        sim.inject({ path: /^\/api\/v1\/access_token/, status: 200, body: { error: 'invalid_grant' } });
        return sim.injectKind('revoked');
      case 'rate_limited':
        return sim.injectKind('rate_limited');
      case 'media_refused':
        return sim.inject({ path: /^\/api\/media\/asset/, status: 200, body: { json: { errors: [['INVALID_MIMETYPE', 'unsupported mimetype', 'mimetype']] } } });
      case 'duplicate':
        return sim.injectKind('rejected');
    }
  },
});
