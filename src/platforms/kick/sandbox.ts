import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { KICK_API_ORIGIN, KICK_ID_ORIGIN, startKickSimulator } from './kick.simulator.js';

/** Kick in the sandbox: the OAuth 2.1 app, a streamer per account approving its own consent, chat messages in the streamer's own channel. */
export default defineSandboxKit({
  origins: [KICK_ID_ORIGIN, KICK_API_ORIGIN],
  app: SANDBOX_APPS.kick,
  example: { settings: {}, media: 'none' },
  async start() {
    const sim = await startKickSimulator();
    sim.addApp(SANDBOX_APPS.kick);
    return sim;
  },
  addAccount(sim, account) {
    const id = Number(numericId(account.key, 8, 'kick'));
    if (!sim.users.has(id)) sim.addUser({ user_id: id, name: account.name, slug: account.handle });
    return { kind: 'oauth', approve: () => sim.approveAs(id) };
  },
  feed(sim, internalId) {
    return sim.messages
      .filter((m) => String(m.broadcasterUserId) === internalId)
      .map((m) => ({ id: m.id, text: m.content, createdAt: new Date(m.createdAt).toISOString(), ...(m.replyTo ? { replyTo: m.replyTo } : {}), media: [] }));
  },
  fault(sim, fault) {
    switch (fault) {
      case 'revoked':
        // The access token is refused and so is the refresh (Kick's bare 400): the grant is gone.
        sim.inject({ path: /^\/oauth\/token/, status: 400, body: { error: 'Invalid request' } });
        return sim.injectKind('revoked');
      case 'rate_limited':
        return sim.injectKind('rate_limited');
      case 'media_refused':
      case 'duplicate':
        return sim.injectKind('rejected');
    }
  },
});
