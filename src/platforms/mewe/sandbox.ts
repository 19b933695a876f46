import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { hexId } from '../sandbox/ids.js';
import { MEWE_ORIGIN, startMeweSimulator } from './mewe.simulator.js';

/** The group every sandbox account belongs to (a group post's `group`). */
const GROUP = { groupId: 'tidings-sandbox', name: 'Tidings sandbox' };

/**
 * MeWe in the sandbox: the developer app (its X-App-Id and X-Api-Key), a user per account logging
 * in on the login page for its own login request, posts on the timeline or in the sandbox group.
 */
export default defineSandboxKit({
  origins: [MEWE_ORIGIN],
  app: SANDBOX_APPS.mewe,
  example: { settings: { postType: 'timeline' }, media: 'image' },
  async start() {
    const sim = await startMeweSimulator();
    sim.addApp({ appId: SANDBOX_APPS.mewe.clientId, apiKey: SANDBOX_APPS.mewe.clientSecret });
    sim.addGroup(GROUP);
    return sim;
  },
  addAccount(sim, account) {
    const userId = hexId(account.key, 24, 'mewe');
    if (!sim.users.some((u) => u.userId === userId)) {
      const [firstName = account.name, ...rest] = account.name.split(' ');
      sim.addUser({ userId, firstName, lastName: rest.join(' '), handle: account.handle, groups: [GROUP.groupId] });
    }
    return { kind: 'oauth', approve: () => sim.loginAs(userId) };
  },
  feed(sim, internalId) {
    return sim.posts
      .filter((p) => p.userId === internalId)
      .map((p) => ({
        id: p.postItemId,
        text: p.text,
        media: p.photos.map((ph) => ({ kind: 'image' as const, sha256: ph.sha256, mimeType: ph.mimeType })),
      }));
  },
});
