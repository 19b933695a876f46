import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit, type SandboxFeedItem } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { startTwitchSimulator, TWITCH_API_ORIGIN, TWITCH_ID_ORIGIN } from './twitch.simulator.js';

/**
 * Twitch in the sandbox: the OAuth app, a streamer per account approving its own consent, chat
 * messages (and announcements) in the streamer's own chat as Twitch keeps them.
 */
export default defineSandboxKit({
  origins: [TWITCH_ID_ORIGIN, TWITCH_API_ORIGIN],
  app: SANDBOX_APPS.twitch,
  example: { settings: { messageType: 'message' }, media: 'none' },
  async start() {
    const sim = await startTwitchSimulator();
    sim.addApp(SANDBOX_APPS.twitch);
    return sim;
  },
  addAccount(sim, account) {
    const id = numericId(account.key, 9, 'twitch');
    if (!sim.users.has(id)) sim.addUser({ id, login: account.handle, display_name: account.name });
    return { kind: 'oauth', approve: () => sim.approveAs(id) };
  },
  feed(sim, internalId) {
    const items: (SandboxFeedItem & { at: number })[] = sim.messages
      .filter((m) => m.broadcasterId === internalId)
      .map((m) => ({ id: m.id, text: m.text, createdAt: new Date(m.createdAt).toISOString(), ...(m.replyTo ? { replyTo: m.replyTo } : {}), media: [], at: m.createdAt }));
    // Twitch gives an announcement no id: it is listed under one made from its time and colour.
    sim.announcements.forEach((a, i) => {
      if (a.broadcasterId !== internalId) return;
      items.push({ id: `announcement:${a.createdAt}:${i}`, text: a.text, createdAt: new Date(a.createdAt).toISOString(), media: [], at: a.createdAt, title: `Announcement (${a.color})` });
    });
    return items.sort((a, b) => a.at - b.at).map(({ at: _at, ...item }) => item);
  },
  fault(sim, fault) {
    switch (fault) {
      case 'revoked':
        // The access token is refused and so is the refresh: the grant is gone.
        sim.inject({ path: /^\/oauth2\/token/, status: 400, body: { status: 400, message: 'Invalid refresh token' } });
        return sim.injectKind('revoked');
      case 'rate_limited':
        return sim.injectKind('rate_limited');
      case 'media_refused':
      case 'duplicate':
        return sim.injectKind('rejected');
    }
  },
});
