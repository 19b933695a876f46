import { defineSandboxKit } from '../sandbox/kit.js';
import { hexId } from '../sandbox/ids.js';
import { HASHNODE_GQL_ORIGIN, startHashnodeSimulator } from './hashnode.simulator.js';

/** The publication every sandbox account writes to (each account is made a member), and a tag to post under. */
const PUBLICATION = { id: '64f0c0ffee00000000005a0d', title: 'Tidings sandbox', url: 'https://tidings-sandbox.hashnode.dev' };
const TAG = { id: '56744721958ef13879b9a11d', name: 'Tidings', slug: 'tidings' };

/** Hashnode in the sandbox: a user per sandbox account with its personal access token, member of the sandbox publication; posts (and the covers Hashnode pulled) as it keeps them. */
export default defineSandboxKit({
  origins: [HASHNODE_GQL_ORIGIN],
  example: { settings: { title: 'Hello from the Tidings sandbox', publication: PUBLICATION.id, tags: [{ value: TAG.id, label: TAG.name }] }, media: 'image' },
  async start(ctx) {
    const sim = await startHashnodeSimulator({ mediaOrigins: ctx.mediaOrigins });
    sim.addPublication({ ...PUBLICATION, members: [] });
    sim.addTag(TAG);
    return sim;
  },
  addAccount(sim, account) {
    // A personal access token looks like a UUID.
    const h = hexId(account.key, 32, 'hashnode-token');
    const token = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
    const id = hexId(account.key, 24, 'hashnode');
    sim.addUser({ id, username: account.handle, name: account.name, token });
    const publication = sim.publications.find((p) => p.id === PUBLICATION.id);
    if (publication && !publication.members.includes(id)) publication.members.push(id);
    return { kind: 'credentials', body: { token } };
  },
  feed(sim, internalId) {
    return sim.posts
      .filter((p) => p.authorId === internalId)
      .map((p) => ({
        id: p.id,
        title: p.title,
        text: p.markdown,
        createdAt: p.publishedAt,
        media: p.cover ? [{ kind: 'image' as const, sha256: p.cover.sha256, mimeType: p.cover.contentType }] : [],
        metrics: { views: p.views, reactions: p.reactionCount, responses: p.responseCount },
      }));
  },
});
