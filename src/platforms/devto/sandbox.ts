import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId, tokenOf } from '../sandbox/ids.js';
import { DEVTO_ORIGIN, startDevtoSimulator } from './devto.simulator.js';

/** DEV in the sandbox: a user per sandbox account with its API key, articles (and the covers DEV pulled) as DEV keeps them. */
export default defineSandboxKit({
  origins: [DEVTO_ORIGIN],
  example: { settings: { title: 'Hello from the Tidings sandbox' }, media: 'image' },
  start: (ctx) => startDevtoSimulator({ mediaOrigins: ctx.mediaOrigins }),
  addAccount(sim, account) {
    const apiKey = tokenOf(account.key, 24, 'devto');
    if (!sim.users.has(apiKey)) sim.addUser({ id: Number(numericId(account.key, 6, 'devto')), username: account.handle, name: account.name, apiKey });
    return { kind: 'credentials', body: { apiKey } };
  },
  feed(sim, internalId) {
    return sim.articles
      .filter((a) => String(a.userId) === internalId)
      .map((a) => ({
        id: String(a.id),
        title: a.title,
        text: a.bodyMarkdown,
        createdAt: a.createdAt,
        media: a.cover ? [{ kind: 'image' as const, sha256: a.cover.sha256, mimeType: a.cover.contentType }] : [],
        metrics: { pageViews: a.pageViews, reactions: a.reactions, comments: a.comments },
      }));
  },
});
