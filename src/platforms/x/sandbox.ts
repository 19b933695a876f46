import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { X_API } from './client.js';
import { startXSimulator } from './x.simulator.js';

/** X in the sandbox: the OAuth 2 app, a user per account approving its own consent, tweets and media as X keeps them. */
export default defineSandboxKit({
  origins: [X_API, 'https://x.com'],
  app: SANDBOX_APPS.x,
  example: { settings: { who_can_reply_post: 'everyone' }, media: 'image' },
  async start() {
    const sim = await startXSimulator({ processingPolls: 1 });
    sim.addClient(SANDBOX_APPS.x);
    return sim;
  },
  addAccount(sim, account) {
    const id = numericId(account.key, 19, 'x');
    sim.addUser({ id, name: account.name, username: account.handle, followers: 120, following: 40 });
    return { kind: 'oauth', approve: () => sim.approveAs(id) };
  },
  feed(sim, internalId) {
    return sim.tweets
      .filter((t) => t.authorId === internalId)
      .map((t) => ({
        id: t.id,
        text: t.text,
        createdAt: t.createdAt,
        ...(t.replyTo ? { replyTo: t.replyTo } : {}),
        media: t.mediaKeys.map((key, i) => {
          const type = [...sim.media.values()].find((m) => m.key === key)?.mediaType ?? '';
          return { kind: type.startsWith('video/') ? ('video' as const) : ('image' as const), sha256: t.mediaSha256[i], mimeType: type };
        }),
        metrics: { ...t.metrics },
      }));
  },
  fault(sim, fault) {
    switch (fault) {
      case 'revoked':
        // The access token is refused and so is the refresh: the grant is gone.
        sim.inject({ path: /^\/2\/oauth2\/token/, status: 400, body: { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' } });
        return sim.injectKind('revoked');
      case 'rate_limited':
        return sim.injectKind('rate_limited');
      case 'duplicate':
        return sim.injectKind('rejected');
      case 'media_refused':
        return sim.inject({
          path: /^\/2\/media\/upload/,
          status: 400,
          body: { errors: [{ parameters: { media_type: [] }, message: 'media type unrecognized.' }], title: 'Invalid Request', detail: 'One or more parameters to your request was invalid.', type: 'https://api.twitter.com/2/problems/invalid-request' },
        });
    }
  },
});
