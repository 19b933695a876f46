import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId, tokenOf } from '../sandbox/ids.js';
import { DEFAULT_TERMS, startWordpressSimulator } from './wordpress.simulator.js';

/** The sandbox's WordPress site (a fixed fake host). */
const SITE = 'https://wordpress.sandbox.invalid';

/** WordPress in the sandbox: one site, an author per sandbox account signing in with an application password, posts as the site keeps them. */
export default defineSandboxKit({
  origins: [SITE],
  example: { settings: { title: 'Hello from the Tidings sandbox', type: 'posts' }, media: 'image' },
  start: () => startWordpressSimulator({ publicUrl: SITE, users: [], terms: structuredClone(DEFAULT_TERMS) }),
  addAccount(sim, account) {
    const id = Number(numericId(account.key, 6, 'wordpress'));
    // As WordPress shows an application password once: groups of four.
    const applicationPassword = tokenOf(account.key, 24, 'wordpress').replace(/(.{4})(?!$)/g, '$1 ');
    if (!sim.users.some((u) => u.id === id)) {
      sim.users.push({ id, username: account.handle, email: `${account.handle}@wordpress.sandbox.invalid`, name: account.name, role: 'author', appPasswords: [applicationPassword] });
    }
    return { kind: 'credentials', body: { siteUrl: SITE, username: account.handle, applicationPassword } };
  },
  feed(sim, internalId) {
    const author = Number(internalId.slice(internalId.lastIndexOf('#') + 1));
    return sim.posts
      .filter((p) => p.author === author)
      .map((p) => {
        const { featured, inContent } = sim.mediaOf(p);
        const shas = [...(featured ? [featured] : []), ...inContent];
        return {
          id: String(p.id),
          title: p.title,
          text: p.content,
          html: true,
          createdAt: p.dateGmt,
          media: shas.map((sha256) => {
            const mimeType = sim.media.find((m) => m.sha256 === sha256)?.mimeType;
            return { kind: 'image' as const, sha256, ...(mimeType ? { mimeType } : {}) };
          }),
        };
      });
  },
});
