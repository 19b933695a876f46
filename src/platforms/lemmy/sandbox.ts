import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId, tokenOf } from '../sandbox/ids.js';
import { startLemmySimulator } from './lemmy.simulator.js';

/** The sandbox's Lemmy instance (a fixed fake host) and the community every sandbox account may post to. */
const INSTANCE = 'https://lemmy.sandbox.invalid';
const COMMUNITY = { id: 1, name: 'sandbox', title: 'Tidings sandbox' };

/** A person's id from their name (the handle, itself made from the account key): the same account, the same id. */
const personId = (name: string) => Number(numericId(name, 9, 'lemmy'));

/** Lemmy in the sandbox: one instance with a `sandbox` community, a person per account logging in with a password. */
export default defineSandboxKit({
  origins: [INSTANCE],
  example: { settings: { subreddit: [{ value: { subreddit: COMMUNITY.name, id: String(COMMUNITY.id), title: 'Hello from the Tidings sandbox' } }] }, media: 'image' },
  async start() {
    const sim = await startLemmySimulator({ publicOrigin: INSTANCE });
    sim.addCommunity({ ...COMMUNITY, description: 'Where sandbox channels post', subscribers: 120 });
    return sim;
  },
  addAccount(sim, account) {
    const password = tokenOf(account.key, 20, 'lemmy');
    sim.addPerson({ id: personId(account.handle), name: account.handle, displayName: account.name, password, emailVerified: true });
    return { kind: 'credentials', body: { instanceUrl: INSTANCE, username: account.handle, password } };
  },
  feed(sim, internalId) {
    const name = decodeURIComponent(internalId.slice(internalId.lastIndexOf('/u/') + 3));
    const id = personId(name);
    const mediaOf = (...texts: (string | null)[]) =>
      sim.imagesIn(...texts).map((sha256) => {
        const mimeType = [...sim.images.values()].find((i) => i.sha256 === sha256)?.mimeType;
        return { kind: 'image' as const, sha256, ...(mimeType ? { mimeType } : {}) };
      });
    const posts = sim.posts
      .filter((p) => p.creatorId === id)
      .map((p) => ({
        id: String(p.id),
        title: p.name,
        text: p.body ?? '',
        createdAt: p.published,
        media: mediaOf(p.url, p.body),
        metrics: { ...p.counts },
      }));
    const comments = sim.comments
      .filter((c) => c.creatorId === id)
      .map((c) => ({
        id: `comment:${c.id}`,
        text: c.content,
        createdAt: c.published,
        replyTo: c.parentId !== null ? `comment:${c.parentId}` : String(c.postId),
        media: mediaOf(c.content),
      }));
    return [...posts, ...comments].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  },
});
