import { defineSandboxKit } from '../sandbox/kit.js';
import { hexId, tokenOf } from '../sandbox/ids.js';
import { SKOOL_API_ORIGIN, SKOOL_UPLOAD_ORIGIN, startSkoolSimulator } from './skool.simulator.js';

/** The sandbox's group (every sandbox account a member who may post) and its label (the example's). */
const LABEL = { id: '7a1d5b0c2e9f4c3b8d6a0e1f2b3c4d5e', displayName: 'General' };
const GROUP = { id: '3c0ffee0d15c4a5b9e8d7c6b5a4f3e2d', name: 'tidings-sandbox', displayName: 'Tidings sandbox', labels: [LABEL], postLevel: 1 };

/** Skool in the sandbox: a member per account with its session cookies, posts and comments in the sandbox group. */
export default defineSandboxKit({
  origins: [SKOOL_API_ORIGIN, SKOOL_UPLOAD_ORIGIN],
  example: { settings: { group: GROUP.id, label: LABEL.id, title: 'Hello from the Tidings sandbox' }, media: 'image' },
  async start() {
    const sim = await startSkoolSimulator();
    sim.addGroup({ ...GROUP, labels: [...GROUP.labels], members: {} });
    return sim;
  },
  addAccount(sim, account) {
    const id = hexId(account.key, 32, 'skool');
    const authToken = tokenOf(account.key, 48, 'skool-auth');
    const clientId = hexId(account.key, 32, 'skool-client');
    if (!sim.users.some((u) => u.id === id)) {
      const [firstName = account.name, ...rest] = account.name.split(' ');
      sim.addUser({ id, name: account.handle, firstName, lastName: rest.join(' '), authToken, clientId });
    }
    const group = sim.groups.get(GROUP.id)!;
    if (!group.members.has(id)) group.members.set(id, { level: 1 });
    return { kind: 'credentials', body: { authToken, clientId } };
  },
  feed(sim, internalId) {
    return sim.posts
      .filter((p) => p.authorId === internalId)
      .map((p) => ({
        id: p.id,
        ...(p.type === 'generic' ? { title: p.title } : {}),
        text: p.content,
        ...(p.parentId ? { replyTo: p.parentId } : {}),
        media: p.attachments.map((a) => ({
          kind: a.contentType.startsWith('video/') ? ('video' as const) : a.contentType.startsWith('image/') ? ('image' as const) : ('document' as const),
          sha256: a.sha256,
          mimeType: a.contentType,
        })),
      }));
  },
});
