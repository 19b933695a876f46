import { defineSandboxKit } from '../sandbox/kit.js';
import { tokenOf } from '../sandbox/ids.js';
import { startListmonkSimulator } from './listmonk.simulator.js';

/** The sandbox's listmonk instance (a fixed fake host) and the list every sandbox campaign goes to. */
const INSTANCE = 'https://listmonk.sandbox.invalid';
const LIST = { id: 1, name: 'Sandbox subscribers', type: 'public' as const, subscriberCount: 120 };
/** the role Tidings needs: campaigns, lists, templates, media, analytics, and settings for the site name */
const PERMISSIONS = ['campaigns:get_all', 'campaigns:manage_all', 'campaigns:get_analytics', 'lists:get_all', 'templates:get', 'media:manage', 'settings:get'];

const kindOf = (mimeType: string) => (mimeType.startsWith('image/') ? ('image' as const) : ('other' as const));

/** listmonk in the sandbox: one instance with one list, an API user per sandbox account, campaigns as the instance keeps them. */
export default defineSandboxKit({
  origins: [INSTANCE],
  example: { settings: { subject: 'Hello from the Tidings sandbox', preview: 'A sandbox campaign', list: String(LIST.id) }, media: 'image' },
  async start() {
    const sim = await startListmonkSimulator({ rootUrl: INSTANCE, siteName: 'Tidings sandbox newsletter' });
    sim.addList(LIST);
    return sim;
  },
  addAccount(sim, account) {
    const token = tokenOf(account.key, 32, 'listmonk');
    sim.addUser({ username: account.handle, token, permissions: PERMISSIONS });
    return { kind: 'credentials', body: { instanceUrl: INSTANCE, username: account.handle, token } };
  },
  feed(sim, internalId) {
    const username = internalId.slice(internalId.lastIndexOf('#') + 1);
    return sim.campaigns
      .filter((c) => c.createdBy === username)
      .map((c) => ({
        id: String(c.id),
        title: c.subject,
        text: c.body,
        html: c.contentType === 'richtext' || c.contentType === 'html' || c.contentType === 'visual',
        createdAt: c.createdAt,
        media: c.images.map((m) => ({ kind: kindOf(m.mimeType), sha256: m.sha256, mimeType: m.mimeType })),
      }));
  },
});
